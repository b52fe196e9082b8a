// SPDX-License-Identifier: MIT
// gzip of response bodies: which clients and types get it, and that zlib reads back the text.
#include "net/gzip_body.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace gpumeter::net::gzip_body_test {

std::string gunzip(const std::string& compressed) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));  // NOLINT
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());  // NOLINT(*-reinterpret-cast)
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(GzipBody, AcceptEncoding) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("br, gzip, deflate"));
  EXPECT_TRUE(accepts_gzip("deflate, gzip;q=0.5"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("br"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000, br"));
}

TEST(GzipBody, CompressibleTypes) {
  EXPECT_TRUE(compressible("application/json"));
  EXPECT_TRUE(compressible("text/plain; version=0.0.4; charset=utf-8"));
  EXPECT_TRUE(compressible("image/svg+xml"));
  EXPECT_FALSE(compressible("image/png"));
  EXPECT_FALSE(compressible(""));
}

TEST(GzipBody, RoundTrips) {
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "gpumeter_gpu_utilization{gpu=\"" + std::to_string(i) + "\"} 42\n";
  const auto compressed = gzip(text);
  ASSERT_TRUE(compressed);
  EXPECT_LT(compressed->size(), text.size() / 4);
  EXPECT_EQ(gunzip(*compressed), text);
  EXPECT_EQ(gunzip(gzip("").value()), "");
}

}  // namespace gpumeter::net::gzip_body_test
