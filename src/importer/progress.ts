// Progress of the import by bytes read, one bar per pass and file, on stderr (or the CLI's stream).
import cliProgress from 'cli-progress';

export interface Progress {
  start(label: string, totalBytes: number): void;
  update(bytesRead: number): void;
  stop(): void;
}

const silent: Progress = { start() {}, update() {}, stop() {} };

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** A bar on `stream` when `enabled` (the caller decides: a TTY and no --json); otherwise nothing. */
export function createProgress(enabled: boolean, stream: NodeJS.WritableStream = process.stderr): Progress {
  if (!enabled) return silent;
  let bar: cliProgress.SingleBar | undefined;
  return {
    start(label, totalBytes) {
      bar?.stop();
      bar = new cliProgress.SingleBar(
        {
          format: `${label.padEnd(32)} [{bar}] {percentage}% | {read} of {size} | {duration_formatted}`,
          hideCursor: true,
          stream,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(totalBytes, 1), 0, { read: megabytes(0), size: megabytes(totalBytes) });
    },
    update(bytesRead) {
      bar?.update(bytesRead, { read: megabytes(bytesRead) });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
