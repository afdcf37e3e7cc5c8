/*
 * sql_shell.c - the read loop of the interactive `floe sql` shell (layer
 * 12, cli).
 *
 * States: at the main prompt ("floe> ") the input is empty and a line may
 * be a shell command; after a line that leaves a statement open the shell
 * shows the continuation prompt ("   -> ") and keeps every line typed since
 * the main prompt in one buffer, so the positions handed to execute are the
 * ones the user sees. Each new line re-splits the buffer from the first
 * statement not yet run (cli_sql_shell_split); complete statements run in
 * order, and once nothing is left open the whole entry goes into history
 * and the main prompt returns.
 *
 * Ctrl-C: libedit (EL_SIGNAL) restores the terminal and passes SIGINT to
 * the shell's handler, installed without SA_RESTART, so the terminal read
 * fails with EINTR and el_gets returns NULL with count -1; the shell then
 * drops the buffer. Ctrl-D on an empty line is end of input.
 */
#include <errno.h>
#include <histedit.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/time.h"
#include "cli/sql_shell_int.h"

#define SHELL_PROMPT "floe> "
#define SHELL_CONTINUE "   -> "
#define SHELL_HISTORY_SIZE 1000

/* Set by the SIGINT handler, read by the loop and by executors on any
 * thread: a lock-free atomic is safe for both. */
static atomic_int shell_interrupted;

static void on_sigint(int sig) {
  (void)sig;
  shell_interrupted = 1;
}

bool cli_sql_shell_interrupted(void) { return shell_interrupted != 0; }

bool cli_sql_shell_is_interactive(void) { return isatty(STDIN_FILENO) == 1; }

char *cli_sql_shell_history_path(void) {
  const char *env = getenv("FLOE_HISTORY");
  if (env) return *env ? fl_strdup(env) : NULL;
  const char *home = getenv("HOME");
  if (!home || !*home) return NULL;
  size_t n = strlen(home);
  char *p = fl_malloc(n + sizeof "/.floe_history");
  memcpy(p, home, n);
  memcpy(p + n, "/.floe_history", sizeof "/.floe_history");
  return p;
}

/* Where lines come from: libedit on a terminal, else plain stdin. */
typedef struct shell_io {
  EditLine *el;  /* NULL: read stdin with getline, no prompts, no history */
  History *hist; /* NULL without el */
  char *plain;   /* getline's buffer */
  size_t plain_cap;
  bool continuing; /* which prompt to show */
} shell_io_t;

/*
 * The next line (its newline stripped: *len excludes it), or NULL at end
 * of input, or NULL with *interrupted set after Ctrl-C.
 */
static const char *read_line(shell_io_t *io, size_t *len, bool *interrupted) {
  *interrupted = false;
  const char *line;
  if (io->el) {
    shell_interrupted = 0;
    int count = 0;
    line = el_gets(io->el, &count);
    if (!line) {
      *interrupted = count == -1 && (shell_interrupted || errno == EINTR);
      return NULL;
    }
    *len = (size_t)count;
  } else {
    ssize_t n = getline(&io->plain, &io->plain_cap, stdin);
    if (n < 0) return NULL;
    line = io->plain;
    *len = (size_t)n;
  }
  while (*len && (line[*len - 1] == '\n' || line[*len - 1] == '\r')) (*len)--;
  return line;
}

static char *prompt_fn(EditLine *el) {
  shell_io_t *io = NULL;
  el_get(el, EL_CLIENTDATA, &io);
  return io && io->continuing ? SHELL_CONTINUE : SHELL_PROMPT;
}

static void history_add(shell_io_t *io, const char *text, size_t len) {
  if (!io->hist) return;
  while (len && (text[len - 1] == '\n' || text[len - 1] == ' ')) len--;
  if (len == 0) return;
  char *s = fl_strndup(text, len);
  HistEvent ev;
  history(io->hist, &ev, H_ENTER, s);
  fl_free(s);
}

/* Runs one statement of the buffer, timing it when asked. */
static void run_piece(cli_shell_t *sh, const char *text, const sql_piece_t *p) {
  shell_interrupted = 0;
  int64_t t0 = fl_monotonic_ns();
  sh->opts->execute(sh->opts->ctx, text + p->off, p->len, (int)p->pos.line, (int)p->pos.col);
  fflush(stdout);
  if (sh->settings->timing) printf("Time: %.3f ms\n", (double)(fl_monotonic_ns() - t0) / 1e6);
}

/* A lexical error in what was typed, with the line and a caret under it. */
static void print_error(const char *text, size_t len, fl_err_t *err) {
  fl_buf_t caret;
  fl_buf_init(&caret);
  sql_error_caret(text, len, err, &caret);
  fprintf(stderr, "error: %s\n%.*s", err->msg, (int)caret.len, (const char *)caret.data);
  fl_buf_free(&caret);
  fl_err_clear(err);
}

/* End of a script on stdin with a statement still open: like `floe sql -f`,
 * the last statement needs no ';', and an open string is an error. */
static void finish_input(cli_shell_t *sh, const fl_buf_t *in, size_t done, fl_arena_t *a) {
  fl_arena_reset(a);
  const char *text = (const char *)in->data;
  sql_piece_t *pieces;
  size_t n;
  fl_err_t err = {0};
  if (sql_split_script(a, text, in->len, &pieces, &n, &err)) {
    print_error(text, in->len, &err);
    return;
  }
  for (size_t i = 0; i < n && !sh->quit; i++)
    if (pieces[i].off >= done) run_piece(sh, text, &pieces[i]);
}

/*
 * Takes one line of SQL into the buffer and runs what it completes.
 * Returns true while a statement is still open.
 */
static bool take_sql(cli_shell_t *sh, shell_io_t *io, fl_buf_t *in, size_t *done, fl_arena_t *a) {
  sql_piece_t *pieces;
  size_t n, rest;
  bool incomplete;
  fl_err_t err = {0};
  fl_arena_reset(a);
  const char *text = (const char *)in->data;
  if (cli_sql_shell_split(a, text, in->len, *done, &pieces, &n, &rest, &incomplete, &err)) {
    print_error(text, in->len, &err);
    incomplete = false;
    n = 0;
  }
  for (size_t i = 0; i < n && !sh->quit; i++) {
    run_piece(sh, text, &pieces[i]);
    if (shell_interrupted) {
      /* Ctrl-C while a statement ran: the rest of this entry is dropped. */
      if (i + 1 < n || incomplete)
        fprintf(stderr, "interrupted: the statements after it were not run\n");
      incomplete = false;
      break;
    }
  }
  if (incomplete) {
    *done = rest;
    return true;
  }
  history_add(io, text, in->len);
  fl_buf_clear(in);
  *done = 0;
  return false;
}

static int shell_loop(cli_shell_t *sh, shell_io_t *io) {
  fl_buf_t in;
  fl_buf_init(&in);
  fl_arena_t *a = fl_arena_new(0);
  size_t done = 0;
  while (!sh->quit) {
    io->continuing = in.len > 0;
    size_t len;
    bool interrupted;
    const char *line = read_line(io, &len, &interrupted);
    if (!line) {
      if (interrupted) {
        /* Ctrl-C: forget the statement being typed, stay in the shell. */
        fputs("^C\n", stdout);
        fl_buf_clear(&in);
        done = 0;
        continue;
      }
      if (io->el)
        fputs("\n", stdout);
      else if (in.len)
        finish_input(sh, &in, done, a);
      break;
    }
    if (in.len == 0) {
      char *cmd = fl_strndup(line, len);
      bool blank = cmd[strspn(cmd, " \t")] == '\0';
      bool is_cmd = !blank && cli_shell__command(sh, cmd);
      if (is_cmd) history_add(io, cmd, len);
      fl_free(cmd);
      fflush(stdout);
      if (blank || is_cmd) continue;
    }
    fl_buf_append(&in, line, len);
    fl_buf_append_u8(&in, '\n');
    take_sql(sh, io, &in, &done, a);
  }
  fl_arena_free(a);
  fl_buf_free(&in);
  return 0;
}

int cli_sql_shell_run(const cli_sql_shell_opts_t *opts) {
  if (!opts->execute) {
    fprintf(stderr, "floe sql: the shell needs a statement executor\n");
    return 1;
  }
  cli_shell_t sh = {.opts = opts, .settings = opts->settings};
  if (!sh.settings) {
    sh.settings = &sh.own_settings;
    strcpy(sh.own_settings.format, "table");
  }
  shell_io_t io = {0};
  if (!cli_sql_shell_is_interactive()) {
    /* No terminal: the same statements and commands, read as they come. */
    int status = shell_loop(&sh, &io);
    free(io.plain);
    fflush(stdout);
    return status;
  }
  io.el = el_init("floe", stdin, stdout, stderr);
  if (!io.el) {
    fprintf(stderr, "floe sql: cannot set up line editing on this terminal\n");
    return 1;
  }
  io.hist = history_init();
  HistEvent ev;
  history(io.hist, &ev, H_SETSIZE, SHELL_HISTORY_SIZE);
  history(io.hist, &ev, H_SETUNIQUE, 1);
  char *hpath = opts->history_path ? fl_strdup(opts->history_path) : cli_sql_shell_history_path();
  /* A missing history file is the normal first run, not an error. */
  if (hpath) history(io.hist, &ev, H_LOAD, hpath);
  el_set(io.el, EL_CLIENTDATA, &io);
  el_set(io.el, EL_PROMPT, prompt_fn);
  el_set(io.el, EL_EDITOR, "emacs");
  el_set(io.el, EL_HIST, history, io.hist);
  /* libedit then redraws after a resize or Ctrl-Z and fg, and hands SIGINT
   * on to our handler once the terminal is back in cooked mode. */
  el_set(io.el, EL_SIGNAL, 1);
  el_source(io.el, NULL);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: the terminal read must fail with EINTR */
  sigaction(SIGINT, &sa, &old);

  int status = shell_loop(&sh, &io);

  sigaction(SIGINT, &old, NULL);
  if (hpath && history(io.hist, &ev, H_SAVE, hpath) < 0)
    fprintf(stderr, "floe sql: cannot write history to %s: %s\n", hpath, strerror(errno));
  fl_free(hpath);
  history_end(io.hist);
  el_end(io.el);
  fflush(stdout);
  return status;
}
