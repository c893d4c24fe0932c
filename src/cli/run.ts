// The operator CLI as a function: arguments in, exit code out, every byte through `io`. main.ts runs
// it in a process; tests call it in-process on the test database. Each command lives in its own
// module; this one parses, dispatches and turns failures into messages and exit codes.
import { Console } from 'node:console';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { CliError, type CliIo, type CliStream, type CommandContext, createOutput } from './context.js';
import { registerImport } from './import.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerPurge } from './purge.js';
import { registerRebuild } from './rebuild.js';
import { registerSeed } from './seed.js';

/** As commander does for the process's streams: a terminal's width, else 80 columns. */
function helpWidth(stream: CliStream): number {
  return (stream.isTTY ? stream.columns : undefined) ?? 80;
}

/** Runs `cli <argv>` (argv without node and the script: `['--json', 'keys', 'list']`); resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const console = new Console({ stdout: io.stdout, stderr: io.stderr });
  let exitCode = 0;
  // A fresh program per run: commander keeps parsed options on its commands.
  const program = new Command('cli')
    .description('Clinic analytics operator tools')
    .option('--json', 'print the result as one JSON document on stdout')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
    })
    .showHelpAfterError()
    .exitOverride();

  const output = () => createOutput(Boolean(program.opts<{ json?: boolean }>().json), io, console);
  const cli: CommandContext = {
    io,
    console,
    output,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  registerMigrate(program, cli);
  registerSeed(program, cli);
  registerImport(program, cli);
  registerKeys(program, cli);
  registerPurge(program, cli);
  registerRebuild(program, cli);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    // Commander has already printed its usage error or help.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CliError || error instanceof ConfigError) {
      const details = error instanceof CliError ? error.details : undefined;
      if (output().json) io.stdout.write(`${JSON.stringify({ error: error.message, ...(details ? { details } : {}) }, null, 2)}\n`);
      console.error(error.message);
      return error instanceof CliError ? error.exitCode : 2;
    }
    // Unexpected (database unreachable, a bug): the message, and the stack only when asked for.
    const message = error instanceof Error ? error.message : String(error);
    if (output().json) io.stdout.write(`${JSON.stringify({ error: message }, null, 2)}\n`);
    console.error(io.env.DEBUG ? error : `Error: ${message}\n(set DEBUG=1 for details)`);
    return 1;
  }
}
