import type { DataSource } from 'typeorm';
import type { CatalogGeneration } from '../cache/catalog-generation';
import { readSearchRows, readToolStamps } from '../persistence/search-rows';
import { SearchIndex } from '../search/index';
import type { Logger } from '../shared/logger';
import type { EmbeddingSync } from './embedding-sync.service';

/**
 * Keeps the search index (issue 18) equal to the stored catalog, incrementally, on every replica.
 *
 * Why one reconciliation on the catalog generation instead of hooks in each write path: every write that can change
 * what is served (a snapshot publish, on this replica's event loop or the SQLite writer thread; a host extension;
 * a tenant or source deletion; a classification; the derived-row refresh; the CLI; another replica) already
 * advances CatalogGeneration, locally after the commit, by LISTEN/NOTIFY or by polling the stored version. Hooking the
 * generation reaches them all, including paths written later, and the index of replica B learns about replica A's
 * sync exactly as B's catalog cache does. A pass reads the (toolId, rowHash) stamps of the table, loads the text of
 * the rows whose stamp it has not indexed, and removes the ids that are gone: the index is never rebuilt, and a
 * tool whose row changed but whose text did not (a classification, a re-sync) costs one hash in SearchIndex.upsert.
 *
 * Passes are coalesced (one at a time; changes during a pass make one more) and debounced after a change, so a
 * burst of publishes costs one pass. A search first catches up with the current generation (catchUp), so a change
 * is searchable on the next request, as it is listable.
 *
 * With the optional embedding stage configured, each pass hands the texts it loaded and the ids it removed to
 * EmbeddingSync, which computes the vectors of changed texts in the background: a pass (and so a search's catchUp)
 * never waits for the embeddings endpoint.
 */
export interface SearchIndexLoad {
  readonly tools: number;
  readonly ms: number;
}

/**
 * Catalogs up to this size are indexed before the app serves (measured through SQLite at start-up: ~270 µs a tool on
 * the loaded 2-core bench machine, so at most ~1.4 s); larger ones in the background while search answers 503.
 */
const SYNC_START_MAX_TOOLS = 5_000;
/** Coalesces the generation advances of a burst of writes into one pass. */
const DEBOUNCE_MS = 50;
/** Documents indexed between two yields to the event loop, so a large pass never stalls other requests for long. */
const YIELD_EVERY = 256;

export class SearchIndexSync {
  readonly index = new SearchIndex();
  private readonly indexed = new Map<string, string>();
  private syncedGeneration: string | null = null;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private firstLoad: SearchIndexLoad | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ds: DataSource,
    private readonly generation: CatalogGeneration,
    private readonly log: Logger,
    /** The optional embedding stage (TOOLCAT_EMBEDDINGS_URL), or null. */
    readonly embeddings: EmbeddingSync | null = null,
  ) {
    this.unsubscribe = generation.onChange(() => this.schedule());
  }

  /** True once every stored tool has been indexed once (before that, search answers 503). */
  get ready(): boolean {
    return this.firstLoad !== null;
  }

  /** The first full load: how many tools and how long (bench, logs). */
  get load(): SearchIndexLoad | null {
    return this.firstLoad;
  }

  /**
   * Loads every stored tool: awaited when the catalog is small (SYNC_START_MAX_TOOLS), else in the background.
   * Resolves when the app may serve.
   */
  async start(): Promise<void> {
    const [{ n }] = (await this.ds.query('SELECT COUNT(*) AS n FROM tool')) as Array<{ n: number | string }>;
    const first = this.catchUp();
    if (Number(n) <= SYNC_START_MAX_TOOLS) return first;
    first.catch((err: unknown) => this.log.warn({ err }, 'search index: the first load failed; retried on the next catalog change or search'));
  }

  /** Resolves once the index holds the catalog of the generation current when it was called (or a later one). */
  async catchUp(): Promise<void> {
    for (let pass = 0; pass < 4 && !this.stopped; pass++) {
      if (this.running) {
        await this.running;
        continue;
      }
      if (this.syncedGeneration === this.generation.current) return;
      this.running = this.reconcile().finally(() => {
        this.running = null;
      });
      await this.running;
    }
  }

  /** Stops following the catalog; resolves when the embedding pass in flight (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.embeddings?.stop();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.catchUp().catch((err: unknown) => this.log.warn({ err }, 'search index: a catalog change could not be indexed yet; retried on the next change or search'));
    }, DEBOUNCE_MS);
    this.timer.unref();
  }

  private async reconcile(): Promise<void> {
    const generation = this.generation.current;
    const started = performance.now();
    const stamps = await readToolStamps(this.ds);
    const live = new Set<string>();
    const stale: string[] = [];
    for (const s of stamps) {
      live.add(s.toolId);
      if (this.indexed.get(s.toolId) !== s.rowHash) stale.push(s.toolId);
    }
    const gone: string[] = [];
    for (const id of [...this.indexed.keys()]) {
      if (live.has(id)) continue;
      this.index.remove(id);
      this.indexed.delete(id);
      gone.push(id);
    }
    const loaded = await readSearchRows(this.ds, stale);
    const found = new Set<string>();
    let changed = 0;
    for (let i = 0; i < loaded.length; i++) {
      const { doc, rowHash } = loaded[i];
      found.add(doc.toolId);
      if (this.index.upsert(doc)) changed++;
      this.indexed.set(doc.toolId, rowHash);
      // One hash per tool, here rather than after the loop: a first load of 100,000 tools stays in yielded steps.
      this.embeddings?.offer([doc]);
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((r) => setImmediate(r));
    }
    // Deleted between the two reads: gone from the catalog, so gone from the index.
    for (const id of stale) {
      if (found.has(id) || !this.indexed.has(id)) continue;
      this.index.remove(id);
      this.indexed.delete(id);
      gone.push(id);
    }
    const removed = gone.length;
    this.embeddings?.forget(gone);
    this.syncedGeneration = generation;
    const ms = performance.now() - started;
    if (!this.firstLoad) {
      this.firstLoad = { tools: this.index.size, ms };
      this.log.debug({ tools: this.index.size, ms: Math.round(ms), bytes: this.index.stats().bytes }, 'search index loaded'); // debug: CLI commands print their answer on stdout with the logs
    } else if (changed || removed) {
      this.log.debug({ changed, removed, ms: Math.round(ms) }, 'search index updated');
    }
  }
}
