// What `miniclaw --help` prints, and each command's own `--help`.

export const USAGE = `Usage: miniclaw [command] [options]

Commands:
  (none)                    the REPL assistant (line mode when stdin is not a terminal)
  run MESSAGE               one turn; the final reply on stdout
  run --output-format json|stream-json MESSAGE
                            one JSON object (result, session, stop reason, usage, cost), or
                            one event per line and then that object; piped stdin joins the
                            message (or is the message, with none or -)
  run --output-schema FILE MESSAGE
                            one turn whose answer is a JSON object checked against the
                            JSON Schema in FILE; the object alone on stdout
  cron                      run the jobs of workspace/cron.json until stopped
  cron run JOB | cron list  run one job now (--force: even when paused) | list jobs and
                            their next run
  cron runs [JOB]           the latest runs, of every job or of JOB
  sessions [show KEY]       list sessions | print one (--all: compacted parts too)
  sessions new KEY          create an empty session
  sessions fork FROM NEW [ID]  copy a session (up to message ID) under a new key
  sessions export KEY       a session as JSONL on stdout (either backend)
  sessions import FILE      a session from a JSONL file (--session KEY: under another key)
  db migrate                create or update the tables (PostgreSQL; also done on first use)
  mcp [list]                the MCP servers of workspace/mcp.json: connects them, lists
                            their state and tools, stops them
  mcp add | remove | login  add or remove a server (after you confirm), sign in to one
                            (see miniclaw mcp --help)
  steer KEY TEXT            add a message to session KEY's running turn, or its next one
                            (from another terminal; see miniclaw steer --help)
  demo                      the REPL against the built-in scripted model (no key needed)
  init [DIR]                create a workspace from the templates (default
                            ~/.miniclaw/workspace); keeps existing files
  replay FILE               run a cassette (made with --record) again against this code and
                            workspace, offline; pass, or the first difference (--tolerate
                            system,tools)
  Each command has its own help: miniclaw COMMAND --help.

Options:
  --workspace DIR           workspace folder (env MINICLAW_WORKSPACE, default
                            ~/.miniclaw/workspace)
  --model ID                model (env MINICLAW_MODEL; the REPL's /model changes it)
  --provider NAME           anthropic | bedrock | vertex | foundry: where Claude runs (env
                            MINICLAW_PROVIDER; its own credentials: docs/providers.md)
  --fallback-model ID       the model a turn moves to when the primary stays overloaded
  --agent ID                agent to talk to (default main)
  --session KEY             session key (default agent:<agent>:main; run: a new session each time)
  -c, --continue            the REPL: reopen the last conversation; run: the last run's session
  --resume [KEY]            the REPL: reopen session KEY, or pick one of the recent ones
  --permission-mode MODE    default | acceptEdits | plan | dontAsk | bypassPermissions
                            (the REPL's /mode changes it)
  --allowed-tools TOOLS     run these unasked, for this process: tool names or Claude Code's
                            (Read, Edit, WebFetch...) and commands as Bash(git log:*) or
                            Bash(npm test); comma or space separated
  --disallowed-tools TOOLS  refuse these tools (Bash: every command) or Bash(rm:*) commands
  --append-system-prompt TEXT  added to the end of every agent's system prompt
  --max-budget-usd N        a turn stops once its estimated cost passes N dollars
  --thinking MODE           adaptive | off | a budget in tokens (at least 1024); overrides
                            every agent's SOUL.md (REPL, run, cron)
  --effort LEVEL            low | medium | high | xhigh | max; overrides every agent's
                            SOUL.md (REPL, run, cron; the REPL's /effort changes it)
  --max-iterations N        model requests per turn before it stops (default 20, or the
                            agent's max_iterations; REPL, run, cron)
  --database-url URL        sessions and cron on PostgreSQL (env MINICLAW_DATABASE_URL;
                            schema from MINICLAW_DATABASE_SCHEMA, default miniclaw)
  --sandbox MODE            on | auto | off: commands run under bubblewrap where it works
                            (on, the default); auto also runs a command the gate cannot
                            prove read-only unasked, confined to the working folder with no
                            network (env MINICLAW_SANDBOX, or "sandbox" in settings.json)
  --record FILE             run, the REPL: write every model request and response to a
                            cassette (credentials removed) that miniclaw replay FILE runs again
  -h, --help                this text (after a command: that command's)
  -v, --version             the version`;

/** The options every command that runs turns takes, for the commands' own help. */
const TURN_OPTIONS = `  --workspace DIR, --model ID, --provider NAME, --fallback-model ID, --agent ID,
  --permission-mode MODE, --thinking MODE, --effort LEVEL, --max-iterations N,
  --max-budget-usd N, --database-url URL, --sandbox MODE
                            as in miniclaw --help`;

/** Each command's own `--help`. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `Usage: miniclaw run [options] MESSAGE...

One turn in a new session: the final reply on stdout, tool activity and the session key on
stderr. Piped stdin joins the message (or is the message, with none or -). Exits 0, or 1 with
one line when the turn is refused or stops on an error; 130 on Ctrl-C.

Options:
  --session KEY             go on in session KEY instead of a new one
  -c, --continue            go on in the session of the last run
  --output-format FORMAT    text (the reply) | json (one object: result, session, stop
                            reason, usage, cost) | stream-json (one event per line, then it)
  --output-schema FILE      the answer is a JSON object checked against the JSON Schema in
                            FILE, printed alone
  --allowed-tools TOOLS, --disallowed-tools TOOLS, --append-system-prompt TEXT,
  --record FILE             as in miniclaw --help
${TURN_OPTIONS}`,
  cron: `Usage: miniclaw cron [run JOB [--force] | list | runs [JOB]] [options]

  cron                      run the jobs of workspace/cron.json until SIGINT or SIGTERM
  cron run JOB              run one job now and print its result (--force: even when paused)
  cron list                 the jobs, their schedules, state and next run
  cron runs [JOB]           the latest runs, of every job or of JOB

Options:
${TURN_OPTIONS}`,
  sessions: `Usage: miniclaw sessions [SUBCOMMAND] [options]

  sessions                  list sessions: key, agent, messages, tokens, last activity
  sessions show KEY         print one (--all: its compacted parts too)
  sessions new KEY          create an empty session
  sessions fork FROM NEW [MESSAGE_ID]
                            copy a session (up to a message) under a new key
  sessions export KEY       a session as JSONL on stdout
  sessions import FILE      a session from a JSONL file (--session KEY: under another key)

A key is agent:<agent>:<name> for conversations, cron:<job> for jobs; a key miniclaw
creates has no blanks.

Options:
  --workspace DIR, --database-url URL   as in miniclaw --help`,
  db: `Usage: miniclaw db migrate [--database-url URL]

Creates or updates miniclaw's tables (sessions, cron, pg-boss's) in the database of
--database-url or MINICLAW_DATABASE_URL, in schema MINICLAW_DATABASE_SCHEMA (default
miniclaw). Also done on first use.`,
  mcp: `Usage: miniclaw mcp [list] [--workspace DIR]
       miniclaw mcp add NAME URL [--transport http|sse] [-H "Name: value"]... [-y]
       miniclaw mcp add NAME [-e KEY=VALUE]... [-y] -- COMMAND [ARGS...]
       miniclaw mcp remove NAME [-y]
       miniclaw mcp login NAME

list (the default) connects the MCP servers of the workspace's mcp.json, lists each one's
state and tools, and stops them; the REPL's /mcp shows the same for the servers it runs.
add writes a server to mcp.json and remove takes one out (with its sign-in), each after you
confirm (-y: no question). login signs in to an http server (OAuth): it opens the page with
$BROWSER or prints it, listens on 127.0.0.1 for the redirect, and keeps the tokens in
workspace/mcp-credentials.json, readable by you alone.`,
  steer: `Usage: miniclaw steer KEY TEXT [--workspace DIR]

Adds TEXT to the inbox of session KEY, as if the user had typed it there. The turn
running in that session (a REPL or miniclaw cron, in another terminal) takes it
before its next model request, after the tool calls under way finish; when no turn
runs, the session's next turn takes it with its message. Each message is delivered
once, even if that process crashes. With a database (--database-url, or
MINICLAW_DATABASE_URL) the inbox is a table: the turn may run on any host.

  KEY     an existing session's key, such as agent:main:main, or the session of a job
          of cron.json (cron:<job>) before its first run (miniclaw sessions lists them;
          miniclaw sessions new KEY makes an empty one)
  TEXT    the message; the words after KEY are joined with spaces

Prints the message's id on stderr and exits 0; exits 1 with one line when the session
does not exist, the text is empty or the inbox cannot be written.`,
  demo: `Usage: miniclaw demo

The REPL against the built-in scripted model, in a temporary workspace: the loop, a tool
call, an approval question, memory and a research agent, with no key and no change to your
files.`,
  init: `Usage: miniclaw init [DIR]

Creates the workspace DIR (else --workspace, MINICLAW_WORKSPACE or the default) from the
templates, copying only the files it lacks; prints what it created and what it kept.`,
  replay: `Usage: miniclaw replay FILE [--tolerate system,tools] [--workspace DIR]

Runs the turns of a cassette (made with --record FILE) again against this code and
workspace, offline, in sessions of their own. Prints "replay: pass" and exits 0, or the
first difference between a request and the recorded one and exits 1.

  --tolerate FIELDS         request fields whose changes are no difference (system, tools)`,
};
