import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';

/**
 * Listening and graceful shutdown (issue 7): on shutdown the server stops accepting, tells keep-alive clients
 * to go elsewhere (`Connection: close`), lets every in-flight request finish (up to `drainMs`), and only then
 * lets the caller close pools.
 */
export class HttpServer {
  private server: Server | null = null;
  private inFlight = 0;
  private draining = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly listener: RequestListener,
    /** Errors of the listening server itself (e.g. accept failures when out of file descriptors): logged, not fatal. */
    private readonly onServerError: (err: Error) => void = () => undefined,
  ) {}

  /** Counts a request in flight until its response closes; call first for every request. */
  readonly track = (_req: IncomingMessage, res: ServerResponse): void => {
    this.inFlight++;
    if (this.draining) res.setHeader('Connection', 'close');
    res.once('close', () => {
      this.inFlight--;
      if (this.inFlight === 0) for (const f of this.idle.splice(0)) f();
    });
  };

  listen(port: number, host: string): Promise<{ server: Server; url: string }> {
    return new Promise((resolve, reject) => {
      const s = createServer(this.listener);
      s.once('error', reject);
      s.listen(port, host, () => {
        s.off('error', reject);
        s.on('error', this.onServerError);
        this.server = s;
        const addr = s.address();
        const p = typeof addr === 'object' && addr ? addr.port : port;
        resolve({ server: s, url: `http://${host.includes(':') ? `[${host}]` : host}:${p}` });
      });
    });
  }

  get activeRequests(): number {
    return this.inFlight;
  }

  async drain(drainMs: number): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.draining = true;
    const closed = new Promise<void>((r) => server.close(() => r()));
    server.closeIdleConnections();
    const drained = this.inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => this.idle.push(r));
    const timer = new Promise<void>((r) => setTimeout(r, drainMs).unref());
    await Promise.race([drained, timer]);
    server.closeAllConnections();
    await closed;
    this.server = null;
  }
}
