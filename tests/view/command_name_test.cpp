// SPDX-License-Identifier: MIT
#include "view/command_name.h"

#include <gtest/gtest.h>

namespace gpumeter::view::command_name_test {

using Args = std::vector<std::string>;

TEST(ShortCommand, PythonScriptBasename) {
  EXPECT_EQ(short_command({"python3", "-u", "/home/a/train.py", "--lr", "3"}), "train.py");
  EXPECT_EQ(short_command({"/usr/bin/python3.11", "train.py"}), "train.py");
  EXPECT_EQ(short_command({"python", "-W", "ignore", "-X", "dev", "run.py"}), "run.py");
  EXPECT_EQ(short_command({"python3", "-OO", "--", "-weird-name.py"}), "-weird-name.py");
}

TEST(ShortCommand, PythonModule) {
  EXPECT_EQ(
      short_command({"python", "-m", "torch.distributed.run", "--nproc-per-node", "8", "fit.py"}),
      "torch.distributed.run");
  EXPECT_EQ(short_command({"python3", "-u", "-mhttp.server"}), "http.server");
}

TEST(ShortCommand, JupyterKernelsAndServers) {
  EXPECT_EQ(short_command({"/opt/conda/bin/python", "-m", "ipykernel_launcher", "-f", "/r/k.json"}),
            "jupyter");
  EXPECT_EQ(short_command({"python", "-m", "ipykernel", "-f", "k.json"}), "jupyter");
  EXPECT_EQ(short_command({"/usr/bin/python3", "/usr/local/bin/jupyter-notebook", "--no-browser"}),
            "jupyter");
  EXPECT_EQ(short_command({"/home/a/.local/bin/jupyter-lab"}), "jupyter");
  EXPECT_EQ(short_command({"python3", "/x/site-packages/ipykernel_launcher.py", "-f", "k.json"}),
            "jupyter");
}

TEST(ShortCommand, OtherInterpreters) {
  EXPECT_EQ(short_command({"bash", "/home/a/run.sh", "x"}), "run.sh");
  EXPECT_EQ(short_command({"-bash"}), "bash");
  EXPECT_EQ(short_command({"/bin/sh", "-e", "./job.sh"}), "job.sh");
  EXPECT_EQ(short_command({"node", "--require", "ts-node/register", "server.js"}), "server.js");
  EXPECT_EQ(short_command({"ruby2.7", "-I", "lib", "bin/tool.rb"}), "tool.rb");
  EXPECT_EQ(short_command({"perl", "-w", "/opt/x.pl"}), "x.pl");
}

TEST(ShortCommand, InlineCodeAndReplsShowTheCommandLine) {
  EXPECT_EQ(short_command({"python3", "-c", "import torch"}), "python3 -c import torch");
  EXPECT_EQ(short_command({"/usr/bin/python3"}), "python3");
  EXPECT_EQ(short_command({"bash", "-c", "sleep 1"}), "bash -c sleep 1");
  EXPECT_EQ(short_command({"python3", "-m"}), "python3 -m");
}

TEST(ShortCommand, NotAnInterpreterJustLooksLikeOne) {
  EXPECT_EQ(short_command({"/usr/bin/pythonista", "a.py"}), "pythonista a.py");
  EXPECT_EQ(short_command({"/usr/bin/shell-tool", "a.sh"}), "shell-tool a.sh");
}

TEST(ShortCommand, OtherProgramsShowBasenameAndArguments) {
  EXPECT_EQ(short_command({"/usr/local/bin/ffmpeg", "-i", "in.mp4", "out.mkv"}),
            "ffmpeg -i in.mp4 out.mkv");
  EXPECT_EQ(short_command({"./a.out"}), "a.out");
}

TEST(ShortCommand, TrimsToTheWidthWithAnEllipsis) {
  Args args = {"/opt/bin/render", "--scene", "/data/scenes/very/long/path/to/the/scene.usd"};
  std::string name = short_command(args, 20);
  EXPECT_EQ(name, "render --scene /dat…");
  EXPECT_EQ(short_command(args, 1), "…");
  EXPECT_EQ(short_command(args, 0), "");
  EXPECT_EQ(short_command({"python3", "/x/a_really_long_training_script_name.py"}, 10),
            "a_really_…");
  EXPECT_EQ(short_command({"abc"}, 3), "abc");
}

TEST(ShortCommand, CountsCodePointsNotBytes) {
  EXPECT_EQ(short_command({"/bin/grün", "ärger"}, 10), "grün ärger");
  EXPECT_EQ(short_command({"/bin/grün", "ärger"}, 6), "grün …");
  EXPECT_EQ(short_command({"/bin/ääää"}, 3), "ää…");
}

TEST(ShortCommand, RewrittenSingleStringCommandLines) {
  EXPECT_EQ(short_command({"python3 /home/a/train.py --epochs 3"}), "train.py");
  EXPECT_EQ(short_command({"nginx: worker process"}), "nginx: worker process");
}

TEST(ShortCommand, EmptyArgv) {
  EXPECT_EQ(short_command({}), "");
}

}  // namespace gpumeter::view::command_name_test
