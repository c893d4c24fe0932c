// `npm run cli -- <command>`: the operator's tools. Each command lives in its own module.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { CliError, createOutput, type Output } from './context.js';
import { registerImport } from './import.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerSeed } from './seed.js';

const program = new Command('cli')
  .description('Clinic analytics operator tools')
  .option('--json', 'print the result as one JSON document on stdout')
  .showHelpAfterError()
  .exitOverride();

const output = (): Output => createOutput(Boolean(program.opts<{ json?: boolean }>().json));

registerMigrate(program, output);
registerSeed(program, output);
registerImport(program, output);
registerKeys(program, output);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof CliError || error instanceof ConfigError) {
    const exitCode = error instanceof CliError ? error.exitCode : 2;
    const details = error instanceof CliError ? error.details : undefined;
    if (output().json) process.stdout.write(`${JSON.stringify({ error: error.message, ...(details ? { details } : {}) }, null, 2)}\n`);
    console.error(error.message);
    process.exitCode = exitCode;
  } else {
    // Unexpected (database unreachable, a bug): the message, and the stack only when asked for.
    const message = error instanceof Error ? error.message : String(error);
    if (output().json) process.stdout.write(`${JSON.stringify({ error: message }, null, 2)}\n`);
    console.error(process.env.DEBUG ? error : `Error: ${message}\n(set DEBUG=1 for details)`);
    process.exitCode = 1;
  }
}
