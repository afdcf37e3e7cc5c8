/*
 * commands.c - the table of floe's subcommands, in the order --help lists them.
 */
#include "cli/cli.h"

extern const cli_command_t cli_cmd_convert, cli_cmd_inspect, cli_cmd_cat, cli_cmd_generate,
    cli_cmd_demo, cli_cmd_help, cli_cmd_ns, cli_cmd_table, cli_cmd_sql, cli_cmd_kafka,
    cli_cmd_run;

const cli_command_t *const cli_commands[] = {
    &cli_cmd_sql, &cli_cmd_run, &cli_cmd_ns, &cli_cmd_table, &cli_cmd_convert, &cli_cmd_inspect, &cli_cmd_cat, &cli_cmd_generate, &cli_cmd_kafka, &cli_cmd_demo, &cli_cmd_help, 0,
};
