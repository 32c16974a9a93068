/** Where this deployment's API is reached: the main host's public URL and each drop-in host's (samples, guides). */

/** One drop-in host as customers reach it. */
export interface PublicHost {
  /** The configured name or "port:<n>". */
  label: string;
  /** The adapter's name (`mapbox`, `google`...). */
  adapter: string;
  /** Its public address without a trailing "/". */
  url: string;
}

/** The addresses customers call. */
export interface Deployment {
  /** The main host's public address without a trailing "/" (config `publicApiUrl`). */
  apiUrl: string;
  /** The drop-in hosts (every host whose adapter is not `native`). */
  hosts: readonly PublicHost[];
}

/** A deployment of the main host only, at `apiUrl` (tests and dashboards started without the gateway's hosts). */
export function mainOnly(apiUrl: string): Deployment {
  return { apiUrl: apiUrl.replace(/\/+$/, ''), hosts: [] };
}

/** The first drop-in host of an adapter, or undefined when the deployment has none. */
export function hostOf(d: Deployment, adapter: string): PublicHost | undefined {
  return d.hosts.find((h) => h.adapter === adapter);
}
