// The server's life stages that health checks report: ready only after start-up checks, and not
// ready from the moment shutdown begins (so load balancers stop sending before connections close).
export class Lifecycle {
  private drainingSince: Date | undefined;

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  startDraining(): void {
    this.drainingSince ??= new Date();
  }
}
