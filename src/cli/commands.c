/*
 * commands.c - the table of floe's subcommands.
 */
#include "cli/cli.h"

extern const cli_command_t cli_cmd_help;

const cli_command_t *const cli_commands[] = {
    &cli_cmd_help,
    0,
};
