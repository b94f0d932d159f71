/**
 * Whether this process is one of mocha's parallel workers, which runs file after file with its
 * modules loaded once: a world a support module starts can serve the worker's later files too.
 * scripts/test.mjs sets TEST_WORKERS when it runs a suite in parallel; mocha's workers are forked
 * with an IPC channel, so a plain serial run that inherited the variable is not mistaken for one.
 */
export function inParallelWorker(): boolean {
    return Boolean(process.env.TEST_WORKERS) && typeof process.send === 'function'
}
