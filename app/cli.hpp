#pragma once

namespace dct::app {

// Parses the command line, runs the subcommand, maps dct::Error to the exit codes (README "Exit codes").
int run_cli(int argc, char** argv);

}  // namespace dct::app
