// SPDX-License-Identifier: MIT
// The dashboard's embedded files against the files in the source tree: every file under web/
// is served byte for byte at its path, the page refers only to files that are served, and
// nothing else is.
#include "net/dashboard_assets.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/source_files.h"

namespace gpumeter::net::dashboard_assets_test {

std::filesystem::path source_dir() {
  return gpumeter::testing::source_path(".");
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The asset at `path`, failing the test when there is none.
DashboardAsset served(const std::string& path) {
  const std::optional<DashboardAsset> asset = dashboard_asset(path);
  if (!asset) ADD_FAILURE() << path << " is not served";
  return asset.value_or(DashboardAsset{});
}

// Every (URL path, file) pair the build promises to embed.
std::vector<std::pair<std::string, std::filesystem::path>> expected_assets() {
  const std::filesystem::path web = source_dir() / "web";
  std::vector<std::pair<std::string, std::filesystem::path>> assets = {
      {"/", web / "index.html"},
      {"/assets/dashboard.css", web / "dashboard.css"},
      {"/assets/favicon.svg", web / "favicon.svg"},
      {"/assets/uplot/uPlot.iife.min.js", web / "node_modules/uplot/dist/uPlot.iife.min.js"},
      {"/assets/uplot/uPlot.min.css", web / "node_modules/uplot/dist/uPlot.min.css"},
      {"/assets/uplot/LICENSE", web / "node_modules/uplot/LICENSE"},
  };
  for (const auto& entry : std::filesystem::directory_iterator(web / "js")) {
    assets.emplace_back("/assets/js/" + entry.path().filename().string(), entry.path());
  }
  return assets;
}

TEST(DashboardAssets, EveryFileIsServedByteForByte) {
  const auto assets = expected_assets();
  EXPECT_GT(assets.size(), 10U);
  for (const auto& [path, file] : assets) {
    const DashboardAsset asset = served(path);
    EXPECT_EQ(asset.bytes, read_file(file)) << path << " differs from " << file;
  }
}

TEST(DashboardAssets, ContentTypesFollowTheExtension) {
  EXPECT_EQ(served("/").content_type, "text/html; charset=utf-8");
  EXPECT_EQ(served("/assets/js/main.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(served("/assets/dashboard.css").content_type, "text/css; charset=utf-8");
  EXPECT_EQ(served("/assets/favicon.svg").content_type, "image/svg+xml; charset=utf-8");
  EXPECT_EQ(served("/assets/uplot/LICENSE").content_type, "text/plain; charset=utf-8");
}

TEST(DashboardAssets, IndexHtmlIsThePage) {
  EXPECT_EQ(served("/index.html").bytes, served("/").bytes);
}

TEST(DashboardAssets, EtagsAreQuotedAndDifferPerFile) {
  std::set<std::string> seen;
  for (const auto& [path, file] : expected_assets()) {
    const std::string etag(served(path).etag);
    ASSERT_EQ(etag.size(), 34U) << path;
    EXPECT_EQ(etag.front(), '"');
    EXPECT_EQ(etag.back(), '"');
    EXPECT_TRUE(seen.insert(etag).second) << path << " shares its ETag " << etag;
  }
}

TEST(DashboardAssets, OtherPathsAreNotServed) {
  for (const char* path :
       {"", "/assets", "/assets/", "/assets/js/", "/assets/js/none.js", "/index.htm", "/js/main.js",
        "/assets/../index.html", "/assets/js/main.js?v=1", "/api/v1/status", "/package.json",
        "/assets/node_modules/uplot/package.json"}) {
    EXPECT_FALSE(dashboard_asset(path).has_value()) << path;
  }
}

// Every file the page and its modules load: the page's src/href attributes, the modules'
// relative imports.
std::vector<std::string> references(const std::string& text, const std::regex& pattern,
                                    const std::string& prefix) {
  std::vector<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    found.push_back(prefix + (*it)[1].str());
  }
  return found;
}

TEST(DashboardAssets, ThePageLoadsOnlyServedFiles) {
  const std::string page(served("/").bytes);
  const auto loaded = references(page, std::regex(R"re((?:src|href)="(assets/[^"]+)")re"), "/");
  EXPECT_GE(loaded.size(), 5U);
  for (const std::string& path : loaded) served(path);
}

TEST(DashboardAssets, EveryModuleImportIsServed) {
  const std::regex import_pattern(R"re(from "\./([^"]+)")re");
  for (const auto& [path, file] : expected_assets()) {
    if (!path.starts_with("/assets/js/")) continue;
    for (const std::string& imported :
         references(std::string(served(path).bytes), import_pattern, "/assets/js/")) {
      served(imported);
    }
  }
}

}  // namespace gpumeter::net::dashboard_assets_test
