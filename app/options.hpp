#pragma once
// CLI11 pieces the subcommands' wiring shares: number validators and the raw-input options.
#include <CLI/CLI.hpp>

#include "app/commands.hpp"

namespace dct::app {

const CLI::Validator& positive();      // a number > 0
const CLI::Validator& non_negative();  // a number >= 0
// --shape and --dtype for inputs that do not carry their shape (raw files).
void add_input_options(CLI::App* c, InputOptions& in);

}  // namespace dct::app
