#include "app/cli.hpp"

int main(int argc, char** argv) { return dct::app::run_cli(argc, argv); }
