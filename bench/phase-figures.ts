// What one phase of bench:device measures, shared by the HTTP and MQTT benches.
export interface PhaseFigures {
  /** p99 of /status.json alone, and of the page's HTML alone, on the kept-alive connection. */
  statusP99Ms: number;
  onlyPageP99Ms: number;
  /** Of both together. */
  pageP50Ms: number;
  pageP99Ms: number;
  pageMaxMs: number;
  loopMaxGapMs: number;
  /** 99th percentile of the loop's gaps, to the whole ms above. */
  loopP99GapMs: number;
  /**
   * The device's longest state-file write so far (temporary file, fsync, rename, fsync),
   * ms: the loop waits for it, so a loop gap of about as much is the disk's.
   */
  maxWriteMs: number;
  /** Page requests timed. */
  samples: number;
  /** Retries the device scheduled during the phase. */
  retries: number;
  /**
   * The largest gap of an empty setTimeout(5) loop in a process of its own over the same
   * time: what the machine alone does to a loop (a loaded machine's share of loopMaxGapMs).
   */
  baselineMaxGapMs: number;
}
