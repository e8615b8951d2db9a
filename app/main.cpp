#include "app/cli.hpp"
#include "core/interrupt.hpp"

int main(int argc, char** argv) {
  dct::core::install_interrupt_cleanup();  // first: every thread started later inherits the blocked signals
  return dct::app::run_cli(argc, argv);
}
