/**
 * What an admission journals (D34) and how a record stream settles: a keep is a charge, a release is not, and an
 * admission with neither is unsettled, released after a crash ("kept means charged, unsettled means released").
 * Charges aggregate per (account, key, UTC hour) as D35's ledger rows.
 */

/** An admission: `units` reserved (free units or credit) for plan `id`; `amount` is what a keep charges. */
export interface AdmitRecord {
  t: 'a';
  id: string;
  account: string;
  key: string;
  units: number;
  amount: number;
  at: number;
}

/** A keep: the answer was given, the admission is charged. Self-contained, so a fold needs no earlier record. */
export interface KeepRecord {
  t: 'k';
  id: string;
  account: string;
  key: string;
  units: number;
  amount: number;
  at: number;
}

/** A release (D11): the admission is not charged and its units return. */
export interface ReleaseRecord {
  t: 'r';
  id: string;
}

/** One journal record of the admission path. */
export type AdmissionRecord = AdmitRecord | KeepRecord | ReleaseRecord;

/** How a stream of records settled. */
export interface Settlement {
  /** The first keep of each admission, in stream order: what is charged. */
  kept: KeepRecord[];
  /** Ids released explicitly, then (after a crash) the unsettled admissions' ids. */
  released: string[];
  /** Keeps or releases of an admission already settled in the stream: ignored, counted for the operator. */
  repeats: number;
}

/**
 * Settles a record stream fed in batches (a replay folds in batches): a keep or release whose admission lies before
 * the stream still counts, since the keep carries its amount; admissions not yet settled are carried over batches.
 */
export class Settler {
  private readonly open = new Map<string, AdmitRecord>();
  private readonly settled = new Set<string>();
  private repeats = 0;

  /** The keeps and releases of the next batch of the stream. */
  add(records: Iterable<AdmissionRecord>): Settlement {
    const kept: KeepRecord[] = [];
    const released: string[] = [];
    const repeatsBefore = this.repeats;
    for (const r of records) {
      if (r.t === 'a') {
        if (!this.settled.has(r.id)) this.open.set(r.id, r);
      } else if (this.settled.has(r.id)) this.repeats += 1;
      else {
        if (this.open.delete(r.id)) this.settled.add(r.id);
        if (r.t === 'k') kept.push(r);
        else released.push(r.id);
      }
    }
    return { kept, released, repeats: this.repeats - repeatsBefore };
  }

  /** Admissions of the stream with no keep or release yet: in flight, or released when the stream ended in a crash. */
  unsettled(): AdmitRecord[] {
    return [...this.open.values()];
  }
}

/** Settles a whole stream; with `crashed` (a replay after kill -9) every unsettled admission is released. */
export function settle(records: Iterable<AdmissionRecord>, crashed = false): Settlement {
  const settler = new Settler();
  const s = settler.add(records);
  if (crashed) for (const a of settler.unsettled()) s.released.push(a.id);
  return s;
}

/** One D35 charge row: requests and amount of one key of one account in one UTC hour. */
export interface HourlyCharge {
  account: string;
  key: string;
  hour: number;
  count: number;
  units: number;
  amount: number;
}

const HOUR_MS = 3_600_000;

/** The kept records summed per (account, key, UTC hour), in first-seen order. */
export function hourlyCharges(kept: Iterable<KeepRecord>): HourlyCharge[] {
  const rows = new Map<string, HourlyCharge>();
  for (const k of kept) {
    const hour = Math.floor(k.at / HOUR_MS) * HOUR_MS;
    const id = `${k.account}\n${k.key}\n${hour}`;
    const row = rows.get(id);
    if (row === undefined)
      rows.set(id, { account: k.account, key: k.key, hour, count: 1, units: k.units, amount: k.amount });
    else {
      row.count += 1;
      row.units += k.units;
      row.amount += k.amount;
    }
  }
  return [...rows.values()];
}
