// `npm run cli -- <command>`: the operator's tools in a process. The commands themselves run in
// run.ts, on this process's arguments, streams and environment; the exit code becomes the process's.
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
