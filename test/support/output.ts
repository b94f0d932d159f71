import { waitFor } from '../../common/processes'

/**
 * Waits until a spawned process has written `wanted`. A child's log line reaches the test over a pipe,
 * which may deliver it after the HTTP answer that followed it, so reading the output once races.
 */
export async function waitForOutput(proc: { output(): string }, wanted: string | RegExp, timeoutMs = 10_000): Promise<void> {
    const seen = () => (typeof wanted === 'string' ? proc.output().includes(wanted) : wanted.test(proc.output()))
    await waitFor(`the output to show ${wanted}`, async () => seen(), timeoutMs, 50)
}
