/** A private PostgreSQL cluster (see pg-cluster.mjs). */
export interface Cluster {
  url: string;
  dir: string;
  port: number;
  /** Stops the server and removes its folder; idempotent. */
  stop: () => void;
}

export function findPgBin(): { bin: string | undefined; looked: string[] };
export function startCluster(options?: {
  parent?: string;
  sharedBuffers?: string;
}): Promise<Cluster>;
