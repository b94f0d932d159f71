/**
 * Whether this process is one of mocha's parallel workers, which runs file after file with its
 * modules loaded once: a world a support module starts can serve the worker's later files too.
 * scripts/test.mjs sets TEST_WORKERS when it runs a suite in parallel; mocha's workers are forked
 * with an IPC channel, so a plain serial run that inherited the variable is not mistaken for one.
 */
export function inParallelWorker(): boolean {
    return Boolean(process.env.TEST_WORKERS) && typeof process.send === 'function'
}

/**
 * Registers `stop` for a world a support module keeps for the whole run (call it at module load).
 * Run without parallel workers, a root `after` hook registered by the first file that loads the
 * module runs after the run's last file. In a parallel worker it would run after that first file,
 * so nothing is registered: the world serves the worker's later files and its processes end with
 * the worker (common/processes.ts).
 */
export function stopAfterRun(stop: () => Promise<void>): void {
    if (typeof after === 'function' && !inParallelWorker()) after(stop)
}
