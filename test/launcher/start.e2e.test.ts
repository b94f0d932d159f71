import * as bitcoin from 'bitcoinjs-lib'
import { expect } from 'chai'
import { randomBytes } from 'crypto'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { createPublicClient, http, parseAbi, parseUnits, PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { freePort } from '../support/ports'

const LAUNCHER = path.resolve(__dirname, '../../launcher/index.js')
const DEVNET_CLI = path.resolve(__dirname, '../../devnet/cli.js')

/** The bridge networks a fresh `npm start` enables. */
const NETWORKS_ON_NPM_START = ['NATIVECHAIN', 'BSC', 'ETHEREUM', 'POLYGON', 'BITCOIN', 'TRON', 'SOLANA']
const PAIR = parseAbi(['function getReserves() view returns (uint112, uint112, uint32)'])

/** Process ids of every descendant of `pid`, from /proc. */
function descendants(pid: number): number[] {
    const children = new Map<number, number[]>()
    for (const entry of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue
        try {
            const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
            const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
            children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
        } catch {
            // exited meanwhile
        }
    }
    const result: number[] = []
    const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (result.push(c), walk(c)))
    walk(pid)
    return result
}

/** The environment of the one descendant of `pid` whose command line ends with `entry`. */
function environOf(pid: number, entry: string): Record<string, string> {
    const matches = descendants(pid).filter((p) => {
        try {
            return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').some((arg) => arg.endsWith(entry))
        } catch {
            return false
        }
    })
    expect(matches, `processes running ${entry}`).to.have.length(1)
    const pairs = fs.readFileSync(`/proc/${matches[0]}/environ`, 'utf8').split('\0').filter(Boolean)
    return Object.fromEntries(pairs.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
}

const DEVNET_BLOCK_TIME = 2

/**
 * A devnet mining every DEVNET_BLOCK_TIME seconds in real time has a newest block at most one block
 * time old; a second block time allows for a late tick on a busy machine, and 1 s for timestamps
 * being whole seconds (the miner's clock rounded down).
 */
async function expectHeadOnTheWallClock(client: PublicClient): Promise<void> {
    const head = await client.getBlock({ blockTag: 'latest' })
    const age = Date.now() / 1000 - Number(head.timestamp)
    expect(age, `age in seconds of the devnet's newest block ${head.number}`).to.be.at.most(2 * DEVNET_BLOCK_TIME + 1)
}

const alive = (pid: number) => {
    try {
        process.kill(pid, 0)
        return true
    } catch {
        return false
    }
}

describe('npm start (the launcher)', function () {
    this.timeout(300_000)
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'launcher-'))
    let env: NodeJS.ProcessEnv
    let launcher: Spawned | undefined
    let output = ''

    async function start(): Promise<void> {
        output = ''
        launcher = spawnManaged(process.execPath, [LAUNCHER], { name: 'launcher', env })
        launcher.child.stdout?.on('data', (d) => (output += d.toString()))
        launcher.child.stderr?.on('data', (d) => (output += d.toString()))
        await Promise.race([
            waitFor('the stack to be up', async () => output.includes('The stack is up'), 240_000, 200),
            launcher.exited.then((code) => {
                throw new Error(`launcher exited with ${code}:\n${output.slice(-3000)}`)
            }),
        ])
    }

    /** SIGINT, then every process the launcher started must be gone. */
    async function stop(): Promise<number[]> {
        const started = descendants(launcher!.child.pid!)
        launcher!.child.kill('SIGINT')
        const code = await launcher!.exited
        expect(code, output.slice(-2000)).to.equal(0)
        await waitFor('the stack to stop', async () => started.every((pid) => !alive(pid)), 30_000, 100)
        return started
    }

    const bridgeUrl = () => `http://127.0.0.1:${env.BRIDGE_PORT}`

    async function createSwap(body: Record<string, string>): Promise<{ swap_id: string; deposit_address: string }> {
        const response = await fetch(`${bridgeUrl()}/api/swap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
        const swap = (await response.json()) as { swap_id: string; deposit_address: string }
        expect(response.status, JSON.stringify(swap)).to.equal(201)
        return swap
    }

    /** `npm run devnet -- send …` as the docs give it, in the launcher's environment; its output, the transaction id. */
    async function devnetSend(...args: string[]): Promise<string> {
        const send = spawnManaged(process.execPath, [DEVNET_CLI, 'send', ...args], { name: 'devnet send', env })
        let out = ''
        send.child.stdout?.on('data', (d) => (out += d.toString()))
        send.child.stderr?.on('data', (d) => (out += d.toString()))
        expect(await send.exited, out).to.equal(0)
        return out.trim()
    }

    async function completed(id: string): Promise<{ status: string; amount_sent: string | null }> {
        let last: { status: string; amount_sent: string | null; error_message: string | null } | undefined
        await waitFor(`swap ${id} to complete`, async () => {
            last = (await (await fetch(`${bridgeUrl()}/api/swap/${id}`)).json()) as typeof last
            if (last!.status === 'failed' || last!.status === 'expired') throw new Error(`the swap ended ${last!.status}: ${last!.error_message}`)
            return last!.status === 'completed'
        }, 280_000, 500).catch((err) => {
            throw new Error(`${err.message}; last seen ${JSON.stringify(last)}\n${output.slice(-3000)}`)
        })
        return last!
    }

    before(async () => {
        env = {
            ...process.env,
            DATA_DIR: dataDir,
            DEVNET_PORT: String(await freePort()),
            DEVNET_BLOCK_TIME: String(DEVNET_BLOCK_TIME),
            DEVNET_METADATA_PORT: String(await freePort()),
            EMBEDDED_PG_PORT: String(await freePort()),
            GRAPHQL_PORT: String(await freePort()),
            GRAPHQL_HEALTH_PORT: String(await freePort()),
            INDEXER_HEALTH_PORT: String(await freePort()),
            EXPLORER_PORT: String(await freePort()),
            PLATFORM_PORT: String(await freePort()),
            BRIDGE_PORT: String(await freePort()),
            // The bridge's local BSC, ETHEREUM and POLYGON anvils.
            BSC_DEVNET_PORT: String(await freePort()),
            ETHEREUM_DEVNET_PORT: String(await freePort()),
            POLYGON_DEVNET_PORT: String(await freePort()),
            // The local Bitcoin network and swap provider.
            BITCOIN_DEVNET_PORT: String(await freePort()),
            PROVIDER_DEVNET_PORT: String(await freePort()),
            // A swap's steps follow each other within seconds rather than the production default's tens of seconds.
            BRIDGE_MONITOR_INTERVAL_MS: '1000',
            BRIDGE_PROVIDER_POLL_SECONDS: '1',
            // The bridge's local TRON and SOLANA.
            TRON_DEVNET_PORT: String(await freePort()),
            SOLANA_DEVNET_PORT: String(await freePort()),
            LOG_LEVEL: 'warn',
        }
    })

    after(async () => {
        if (launcher && launcher.child.exitCode === null) await launcher.stop()
        fs.rmSync(dataDir, { recursive: true, force: true })
    })

    it('starts the devnet with its seeded pools, its zoo and its metadata server, its clock on the wall clock, prints the URLs, and Ctrl-C leaves no process behind', async () => {
        await start()
        expect(output).to.include(`http://127.0.0.1:${env.DEVNET_PORT}`)
        expect(output).to.include(`http://localhost:${env.GRAPHQL_PORT}/graphql`)
        expect(output).to.include(`http://localhost:${env.INDEXER_HEALTH_PORT}/ready`)
        expect(output).to.include(`http://localhost:${env.GRAPHQL_HEALTH_PORT}/ready`)

        const client = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) })
        expect(await client.getChainId()).to.equal(3009)
        // DEVNET_PORT is the limiting proxy, not anvil: it refuses as a public node does, and the services are given it.
        expect(output).to.include('as a public node: eth_getLogs up to 10,000 blocks, batches up to 100 calls')
        const rpc = (body: unknown) => fetch(`http://127.0.0.1:${env.DEVNET_PORT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
        const batch = await (await rpc(Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })))).json()
        expect(batch).to.have.nested.property('error.code', -32000)
        const wide = await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: '0x2710' }] })
        expect(wide.status).to.equal(413)
        for (const entry of ['lib/indexer/main.js', 'lib/api/main.js', 'lib/api/platform/main.js', 'lib/bridge/main.js']) {
            expect(environOf(launcher!.child.pid!, entry), `RPC_URL of ${entry}`).to.have.property('RPC_URL', `http://127.0.0.1:${env.DEVNET_PORT}`)
        }
        const deployment = JSON.parse(fs.readFileSync(path.join(dataDir, 'deployment.json'), 'utf8'))
        expect(Object.keys(deployment.pairs)).to.have.length.greaterThanOrEqual(4)
        for (const pair of Object.values<`0x${string}`>(deployment.pairs)) {
            const [reserve0, reserve1] = await client.readContract({ address: pair, abi: PAIR, functionName: 'getReserves' })
            expect(reserve0 > 0n && reserve1 > 0n, `reserves of ${pair}`).to.equal(true)
        }
        // The seeded history ends up to an hour back; the blocks after it follow the wall clock.
        await expectHeadOnTheWallClock(client as PublicClient)

        // The zoo (docs/devnet.md#the-zoo), written to zoo.json: under Prague, so with a 7702 delegation.
        const zoo = JSON.parse(fs.readFileSync(path.join(dataDir, 'zoo.json'), 'utf8'))
        expect(output).to.include(path.join(dataDir, 'zoo.json'))
        for (const address of [zoo.proxies.eip1967, zoo.proxies.clone, zoo.tokens.bytes32Metadata, zoo.selfDestructs.later.address]) {
            expect(await client.getCode({ address }), `code at ${address}`).to.match(/^0x[0-9a-f]+$/)
        }
        expect(await client.getCode({ address: zoo.delegation.authority })).to.equal(`0xef0100${zoo.delegation.delegate.slice(2).toLowerCase()}`)
        // The metadata server, started with the devnet.
        const metadataUrl = `http://127.0.0.1:${env.DEVNET_METADATA_PORT}`
        expect(output).to.include(metadataUrl)
        expect(zoo.metadataUrl).to.equal(metadataUrl)
        expect(await (await fetch(`${metadataUrl}/nft/1.json`)).json()).to.have.property('image', `${metadataUrl}/nft/1.svg`)

        // The wallet platform is a process of its own; only it, of the two, holds MASTER_KEY.
        expect(output).to.include(`http://localhost:${env.PLATFORM_PORT}`)
        expect((await fetch(`http://127.0.0.1:${env.PLATFORM_PORT}/health`)).status).to.equal(200)
        // The indexer answers its readiness (following, or still behind while it backfills the history).
        const ready = await fetch(`http://127.0.0.1:${env.INDEXER_HEALTH_PORT}/ready`)
        expect([200, 503]).to.include(ready.status)
        expect(await ready.json()).to.have.property('status').that.is.a('string')
        const api = environOf(launcher!.child.pid!, 'lib/api/main.js')
        const platform = environOf(launcher!.child.pid!, 'lib/api/platform/main.js')
        expect(api).to.have.property('JWT_SECRET')
        expect(api, 'environment of the api process').not.to.have.property('MASTER_KEY')
        expect(platform).to.have.property('MASTER_KEY').that.matches(/^[0-9a-f]{64}$/)
        expect(platform).not.to.have.property('JWT_SECRET')

        // A second start on the same data directory says so in one line and leaves the first alone.
        const second = spawnManaged(process.execPath, [LAUNCHER], { name: 'second launcher', env })
        let secondOutput = ''
        second.child.stdout?.on('data', (d) => (secondOutput += d.toString()))
        second.child.stderr?.on('data', (d) => (secondOutput += d.toString()))
        expect(await second.exited, secondOutput).to.equal(1)
        expect(secondOutput.trim().split('\n'), secondOutput).to.have.length(1)
        expect(secondOutput).to.include(`already running (pid ${launcher!.child.pid})`)
        expect((await fetch(`http://127.0.0.1:${env.PLATFORM_PORT}/health`)).status).to.equal(200)

        const stopped = await stop()
        expect(stopped.length, 'processes the launcher started').to.be.greaterThanOrEqual(3)
        const refused = await fetch(`${metadataUrl}/nft/1.json`).then(() => false, () => true)
        expect(refused, 'the metadata server stopped with the devnet').to.equal(true)
    })

    it('reuses the chain and the database on a second start, without deploying or seeding again (the zoo neither), and dates new blocks by the wall clock; LOG_FORMAT=pretty prints every line readable', async () => {
        const before = JSON.parse(fs.readFileSync(path.join(dataDir, 'deployment.json'), 'utf8'))
        const zooBefore = fs.readFileSync(path.join(dataDir, 'zoo.json'), 'utf8')
        env.LOG_LEVEL = 'info'
        // As on a terminal (the output here is a pipe): the launcher's lines and those it relays.
        env.LOG_FORMAT = 'pretty'
        await start()
        expect(output).to.include('nothing to deploy')
        expect(output).not.to.include('seeding the devnet')
        const after = JSON.parse(fs.readFileSync(path.join(dataDir, 'deployment.json'), 'utf8'))
        expect(after).to.deep.equal(before)
        expect(output).to.include('devnet zoo found; nothing to add')
        expect(output).not.to.include('adding the zoo')
        expect(fs.readFileSync(path.join(dataDir, 'zoo.json'), 'utf8')).to.equal(zooBefore)
        await expectHeadOnTheWallClock(createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) }) as PublicClient)
        // The launcher's progress line ends once the indexer's own /ready says it follows the head.
        await waitFor('the launcher to say the indexer caught up', async () => /indexing the chain: caught up at block \d+/.test(output), 120_000, 200)
        // Through the proxy, never refused: the indexer's batches stay within its 100 calls.
        expect(output).not.to.include('the node refused a JSON-RPC batch')
        await stop()
        delete env.LOG_FORMAT
        const readable = /^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) /
        expect(output.split('\n').filter((line) => line.startsWith('{')), 'JSON lines in the readable mode').to.deep.equal([])
        expect(output).to.match(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}launcher indexing the chain: caught up at block \d+/m)
        // The indexer's own lines and Subsquid's, relayed from its process.
        const services = output.split('\n').filter((line) => readable.test(line)).map((line) => line.slice(19).split(' ')[0])
        expect(services).to.include.members(['indexer', 'indexer/sqd:processor', 'api', 'platform', 'bridge'])
    })

    it('enables all seven bridge networks, BITCOIN and the provider among them local; BTC → NATIVE and BSC USDT → BTC swaps complete when paid with the documented send command', async function () {
        this.timeout(600_000)
        await start()
        const bridge = bridgeUrl()
        expect(output).to.include(`http://127.0.0.1:${env.BITCOIN_DEVNET_PORT}`)
        expect(output).to.include(`http://127.0.0.1:${env.PROVIDER_DEVNET_PORT}/v3`)
        const tokens = (await (await fetch(`${bridge}/api/tokens`)).json()) as { chains: { name: string; enabled: boolean; tokens: { symbol: string; enabled: boolean }[] }[] }
        const enabled = tokens.chains.filter((c) => c.enabled).map((c) => c.name)
        expect(enabled).to.have.members(NETWORKS_ON_NPM_START)
        expect(tokens.chains.find((c) => c.name === 'BITCOIN')!.tokens.find((t) => t.symbol === 'BTC')).to.have.property('enabled', true)
        const config = (await (await fetch(`${bridge}/api/swap/config`)).json()) as { networks: { chain: string; enabled: boolean; vault_address: string | null }[]; routes: { source_chain: string; source_token: string; target_chain: string; target_token: string; enabled: boolean; disabled_reason?: string }[] }
        expect(config.networks.find((n) => n.chain === 'BITCOIN')).to.include({ enabled: true }).and.have.property('vault_address').that.matches(/^bcrt1q/)
        const route = config.routes.find((r) => r.source_chain === 'BITCOIN' && r.target_chain === 'NATIVECHAIN' && r.target_token === 'NATIVE')!
        expect(route.enabled, route.disabled_reason).to.equal(true)

        const recipient = privateKeyToAccount(generatePrivateKey()).address
        const swap = await createSwap({ source_chain: 'BITCOIN', source_token: 'BTC', target_chain: 'NATIVECHAIN', target_token: 'NATIVE', source_token_amount: '0.01', target_wallet: recipient })
        expect(swap.deposit_address).to.match(/^bcrt1q/)
        // Exactly the command docs/bridge/README.md gives, with the environment the launcher got.
        expect(await devnetSend('BITCOIN', swap.deposit_address, '0.01')).to.match(/^[0-9a-f]{64}$/)
        const done = await completed(swap.swap_id)
        const native = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) })
        expect(done.amount_sent).to.be.a('string')
        expect(await native.getBalance({ address: recipient })).to.equal(parseUnits(done.amount_sent!, 18))

        // The other way: BSC USDT paid with the send command, the provider paying BTC into our BITCOIN vault, which pays the user.
        const btcRecipient = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
        const back = await createSwap({ source_chain: 'BSC', source_token: 'USDT', target_chain: 'BITCOIN', target_token: 'BTC', source_token_amount: '100', target_wallet: btcRecipient })
        expect(await devnetSend('BSC', back.deposit_address, '100', 'USDT')).to.match(/^0x[0-9a-f]{64}$/)
        const returned = await completed(back.swap_id)
        const utxos = (await (await fetch(`http://127.0.0.1:${env.BITCOIN_DEVNET_PORT}/address/${btcRecipient}/utxo`)).json()) as { value: number }[]
        expect(returned.amount_sent).to.be.a('string')
        expect(utxos.reduce((sum, u) => sum + BigInt(u.value), 0n)).to.equal(parseUnits(returned.amount_sent!, 8))
        await stop()
    })

    it('serves the bridge\'s TRON and SOLANA from local networks kept in DATA_DIR, with the bridge\'s vaults funded', async () => {
        await start()
        const tronUrl = `http://127.0.0.1:${env.TRON_DEVNET_PORT}`
        const solanaUrl = `http://127.0.0.1:${env.SOLANA_DEVNET_PORT}`
        expect(output).to.include(tronUrl).and.to.include(solanaUrl)
        const bridge = `http://127.0.0.1:${env.BRIDGE_PORT}/api`
        const { chains } = (await (await fetch(`${bridge}/tokens`)).json()) as any
        for (const name of ['TRON', 'SOLANA']) expect(chains.find((c: any) => c.name === name), name).to.include({ enabled: true })
        const { networks } = (await (await fetch(`${bridge}/swap/config`)).json()) as any
        const vault = (chain: string) => networks.find((n: any) => n.chain === chain).vault_address
        const tronVault = (await (await fetch(`${tronUrl}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: vault('TRON'), visible: true }) })).json()) as any
        expect(tronVault.balance, 'sun of the TRON vault').to.be.greaterThan(0)
        const solanaVault = (await (await fetch(solanaUrl, {
            method: 'POST', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [vault('SOLANA'), { commitment: 'processed' }] }),
        })).json()) as any
        expect(solanaVault.result.value, 'lamports of the SOLANA vault').to.be.greaterThan(0)
        await stop()
        expect(fs.existsSync(path.join(dataDir, 'tron', 'state.json')) && fs.existsSync(path.join(dataDir, 'solana', 'state.json'))).to.equal(true)
    })
})
