/**
 * prom-client metric families whose values live in plain cells, one per label set, resolved once and then updated
 * on the hot path with a number increment (prom-client's own `labels().inc()` hashes the labels on every call).
 * The exposition text is built from the cells only when /metrics is scraped.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** Label values of one series. */
export type Labels = Readonly<Record<string, string>>;

/** One counter series. */
export class CounterCell {
  n = 0;
  constructor(readonly labels: Labels) {}
}

/** One histogram series: cumulative buckets are computed at scrape time from per-bucket counts. */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Record one value (in the family's unit). */
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]! += 1;
    this.sum += v;
  }
}

/** The identity of a label set within its family (only used when a cell is created, never per request). */
const keyOf = (labels: Labels): string => JSON.stringify(labels);

/** A counter family backed by cells; `refresh` runs before each scrape (for values read from elsewhere). */
export class CellCounter extends Counter {
  private readonly cells = new Map<string, CounterCell>();
  refresh: (() => void) | null = null;

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    super({ name, help, labelNames, registers: [registry] });
  }

  /** The cell of a label set, created on first use. */
  cell(labels: Labels): CounterCell {
    const k = keyOf(labels);
    let c = this.cells.get(k);
    if (!c) this.cells.set(k, (c = new CounterCell(labels)));
    return c;
  }

  /** The series for the exposition text. */
  override async get(): ReturnType<Counter['get']> {
    this.refresh?.();
    const base = await super.get();
    return { ...base, values: [...this.cells.values()].map((c) => ({ labels: c.labels, value: c.n })) };
  }
}

/** A histogram family backed by cells. */
export class CellHistogram extends Histogram {
  private readonly cells = new Map<string, HistogramCell>();

  constructor(
    registry: Registry,
    private readonly family: string,
    private readonly help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super({ name: family, help, labelNames, buckets: [...bounds], registers: [registry] });
  }

  /** The cell of a label set, created on first use. */
  cell(labels: Labels): HistogramCell {
    const k = keyOf(labels);
    let c = this.cells.get(k);
    if (!c) this.cells.set(k, (c = new HistogramCell(labels, this.bounds)));
    return c;
  }

  /**
   * The series for the exposition text: cumulative `_bucket`s (with `+Inf`), `_sum` and `_count`. prom-client's
   * registry renders a histogram from this method (and its `get()` reads it too).
   */
  async getForPromString(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: { metricName: string; labels: Labels; value: number }[];
  }> {
    const values = [];
    for (const c of this.cells.values()) {
      let acc = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        acc += c.counts[i]!;
        const le = i < this.bounds.length ? String(this.bounds[i]) : '+Inf';
        values.push({ metricName: `${this.family}_bucket`, labels: { ...c.labels, le }, value: acc });
      }
      values.push({ metricName: `${this.family}_sum`, labels: c.labels, value: c.sum });
      values.push({ metricName: `${this.family}_count`, labels: c.labels, value: acc });
    }
    return { name: this.family, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }

  /**
   * The same series for `getMetricsAsJSON` (what a worker hands the primary's AggregatorRegistry, runtime/cluster.ts):
   * prom-client's own `get()` expects its internal `sharedLabels` shape, which the cells do not have.
   */
  override async get(): ReturnType<Histogram['get']> {
    return (await this.getForPromString()) as unknown as Awaited<ReturnType<Histogram['get']>>;
  }
}
