import { execFileSync, spawnSync } from 'child_process'
import * as fs from 'fs'
import * as path from 'path'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { repoPath } from './paths'
import { freePort } from './ports'

/** The deployed gateway's configuration, run as it is: only GATEWAY_* variables change (docs/configuration.md#gateway). */
export const GATEWAY_CONFIG = repoPath('deploy', 'haproxy.cfg')

/** Where Debian's package puts the binary; /usr/sbin is not on every user's PATH. */
const SEARCHED = ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(path.delimiter)]

const findHaproxy = () => SEARCHED.map((dir) => path.join(dir, 'haproxy')).find((file) => fs.existsSync(file))

/**
 * The haproxy binary, installed from Debian's `haproxy` package when missing, as .ci/run installs
 * chromium: the gateway's tests and `bench:abuse`'s gateway mode run the real HAProxy, and fail,
 * never skip, when it cannot be had.
 */
export function haproxyBinary(): string {
    const found = findHaproxy()
    if (found) return found
    try {
        const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
        execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'pipe' })
        execFileSync('apt-get', ['install', '-y', '-qq', 'haproxy'], { env, stdio: 'pipe' })
    } catch (err) {
        const detail = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()
        throw new Error(`haproxy is not installed and apt-get could not install it (install Debian's haproxy package): ${detail}`, { cause: err })
    }
    const installed = findHaproxy()
    if (!installed) throw new Error('apt-get installed haproxy, but no haproxy binary is in /usr/sbin or on PATH')
    return installed
}

/** `haproxy -c` on the deployed configuration with `env` added: its exit status and what it printed. */
export function checkGatewayConfig(env: Record<string, string>): { status: number | null; output: string } {
    const result = spawnSync(haproxyBinary(), ['-c', '-f', GATEWAY_CONFIG], { env: { ...process.env, ...env }, encoding: 'utf8' })
    return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

export interface GatewayOptions {
    /** host:port of the api, platform and bridge replicas behind it; one left out has no replica (503). */
    api?: string
    platform?: string
    bridge?: string
    /** A PEM file holding the certificate and its key: the public ports then speak TLS only. */
    tlsCert?: string
    /** More GATEWAY_* settings (the limits). */
    env?: Record<string, string>
}

export interface Gateway {
    process: Spawned
    /** http(s)://127.0.0.1:<port> of each public frontend. */
    apiUrl: string
    platformUrl: string
    bridgeUrl: string
    /** http://127.0.0.1:<port> of the scrape frontend. */
    scrapeUrl: string
    /** Its recent log lines. */
    output(): string
    stop(): Promise<void>
}

/**
 * Runs HAProxy with deploy/haproxy.cfg on loopback ports; resolves once it serves (its scrape
 * frontend answers). Whether a replica behind it is up yet is the caller's to wait for.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
    const [api, platform, bridge, scrape, dns] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()])
    const env: Record<string, string> = {
        GATEWAY_API_BIND: `127.0.0.1:${api}`,
        GATEWAY_PLATFORM_BIND: `127.0.0.1:${platform}`,
        GATEWAY_BRIDGE_BIND: `127.0.0.1:${bridge}`,
        GATEWAY_SCRAPE_BIND: `127.0.0.1:${scrape}`,
        // Nothing listens there: the names of the services left out resolve to nothing, as in a
        // compose project where they are scaled to 0.
        GATEWAY_DNS: `127.0.0.1:${dns}`,
        ...(options.api ? { GATEWAY_API_UPSTREAM: options.api } : {}),
        ...(options.platform ? { GATEWAY_PLATFORM_UPSTREAM: options.platform } : {}),
        ...(options.bridge ? { GATEWAY_BRIDGE_UPSTREAM: options.bridge } : {}),
        ...(options.tlsCert ? { GATEWAY_TLS_CERT: options.tlsCert } : {}),
        ...options.env,
    }
    // The same variables with the caller's environment left out: a GATEWAY_* of the shell must not change the config under test.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_') && name !== 'BRIDGE_PORT'))
    const proc = spawnManaged(haproxyBinary(), ['-f', GATEWAY_CONFIG], { name: 'haproxy', env: { ...inherited, ...env } })
    let output = ''
    const collect = (d: Buffer) => {
        output = (output + d.toString()).slice(-20_000)
    }
    proc.child.stdout?.on('data', collect)
    proc.child.stderr?.on('data', collect)
    const scheme = options.tlsCert ? 'https' : 'http'
    const gateway: Gateway = {
        process: proc,
        apiUrl: `${scheme}://127.0.0.1:${api}`,
        platformUrl: `${scheme}://127.0.0.1:${platform}`,
        bridgeUrl: `${scheme}://127.0.0.1:${bridge}`,
        scrapeUrl: `http://127.0.0.1:${scrape}`,
        output: () => output,
        stop: () => proc.stop(5000),
    }
    try {
        await Promise.race([
            waitFor('haproxy to listen', () => fetch(`${gateway.scrapeUrl}/metrics`).then((r) => r.ok, () => false), 30_000, 100),
            proc.exited.then((code) => {
                throw new Error(`haproxy exited with ${code}:\n${output}`)
            }),
        ])
    } catch (err) {
        await proc.stop()
        throw err
    }
    return gateway
}
