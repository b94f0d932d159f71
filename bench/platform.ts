import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Address, createPublicClient, createWalletClient, Hash, http, numberToHex, parseEther, PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { nativeChain, ZERO_FEES } from '../common/chain'
import { startAnvil } from '../devnet/anvil'
import { deployNativeContracts } from '../devnet/deploy'
import { startEmbeddedPostgres } from '../db/postgres'
import { startPlatformProcess } from '../test/support/api'
import { freePort } from '../test/support/ports'
import { appendBenchmark, machine } from './report'

/** npm run bench:platform — native-coin sends through the wallet platform on a devnet, against viem directly: docs/testing.md#benchmarks */

const SENDS = Number(process.env.BENCH_SENDS ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50)
const WALLETS = 20
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 50)
const BLOCK_TIME = Number(process.env.BENCH_BLOCK_TIME ?? 0)
const PWD = 'bench-password-123'
const CHAIN_ID = 3009

async function post(url: string, body: unknown): Promise<any> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user-pwd': PWD }, body: JSON.stringify(body) })
    const json = await res.json()
    if (res.status !== 200 && res.status !== 201) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`)
    return json
}

/** Runs jobs with at most `limit` in flight; resolves with the elapsed milliseconds. */
async function pooled(count: number, limit: number, job: (i: number) => Promise<void>): Promise<number> {
    const started = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: Math.min(limit, count) }, async () => {
        while (next < count) await job(next++)
    }))
    return performance.now() - started
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function main(): Promise<void> {
    const log = (m: string) => process.stdout.write(`${m}\n`)
    const anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID, blockTime: BLOCK_TIME || undefined })
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-platform-pg-'))
    const pg = await startEmbeddedPostgres({ dir: pgDir, port: await freePort(), database: 'bench' })
    let api: Awaited<ReturnType<typeof startPlatformProcess>> | undefined
    try {
        const { contracts } = await deployNativeContracts({ rpcUrl: anvil.url, chainId: CHAIN_ID })
        api = await startPlatformProcess({ databaseUrl: pg.url, rpcUrl: anvil.url, contracts })
        const base = api.platformUrl
        const client = createPublicClient({ transport: http(anvil.url) }) as PublicClient
        const fund = (address: Address) => client.request({ method: 'anvil_setBalance' as any, params: [address, numberToHex(parseEther('1000000'))] as any })
        const sink = privateKeyToAccount(generatePrivateKey()).address
        const send = (from: Address) => post(`${base}/api/wallet/send`, { address_from: from, token: 'NATIVE', amount: '0.001', address_to: sink })

        const register = async (userId: string): Promise<Address> => {
            const { result } = await post(`${base}/api/wallet/register_random`, { user_id: userId, user_pwd: PWD })
            await fund(result.address)
            return result.address
        }

        log(`(a) ${SENDS} sends from one wallet, ${CONCURRENCY} in flight`)
        const one = await register('bench-one')
        await send(one) // warm up: the first request pays the password hash and connection set-up
        const oneMs = await pooled(SENDS, CONCURRENCY, async () => {
            await send(one)
        })

        log(`(b) ${SENDS} sends spread over ${WALLETS} wallets at once`)
        const wallets = await Promise.all(Array.from({ length: WALLETS }, (_, i) => register(`bench-many-${i}`)))
        await Promise.all(wallets.map(send))
        const perWallet = Math.ceil(SENDS / WALLETS)
        const manyStarted = performance.now()
        await Promise.all(wallets.map((w) => pooled(perWallet, Math.max(1, Math.floor(CONCURRENCY / WALLETS) + 1), async () => {
            await send(w)
        })))
        const manyMs = performance.now() - manyStarted

        log(`(c) ${LATENCY_SAMPLES} sequential transfers through the platform and directly with viem`)
        const viaPlatform: number[] = []
        for (let i = 0; i < LATENCY_SAMPLES; i++) {
            const t = performance.now()
            await send(one)
            viaPlatform.push(performance.now() - t)
        }
        const directKey = generatePrivateKey()
        const direct = privateKeyToAccount(directKey)
        await fund(direct.address)
        const wallet = createWalletClient({ account: direct, chain: nativeChain(CHAIN_ID, anvil.url), transport: http(anvil.url) })
        const viaViem: number[] = []
        for (let i = 0; i < LATENCY_SAMPLES; i++) {
            const t = performance.now()
            const hash: Hash = await wallet.sendTransaction({ to: sink, value: parseEther('0.001'), ...ZERO_FEES })
            await client.waitForTransactionReceipt({ hash, pollingInterval: 100 })
            viaViem.push(performance.now() - t)
        }

        const figures = {
            'one wallet: sends/s': Number((SENDS / (oneMs / 1000)).toFixed(1)),
            [`${WALLETS} wallets: sends/s`]: Number(((perWallet * WALLETS) / (manyMs / 1000)).toFixed(1)),
            'platform transfer latency, median (ms)': Number(median(viaPlatform).toFixed(1)),
            'direct viem transfer latency, median (ms)': Number(median(viaViem).toFixed(1)),
            'latency ratio platform/direct': Number((median(viaPlatform) / median(viaViem)).toFixed(2)),
        }
        log('')
        for (const [k, v] of Object.entries(figures)) log(`${k.padEnd(44)} ${v}`)
        appendBenchmark('Wallet platform sends (npm run bench:platform)', figures, [
            `Native-coin transfers through POST /api/wallet/send, each waiting for its receipt; devnet ${BLOCK_TIME ? `with ${BLOCK_TIME}s blocks` : 'mining a block per transaction'}.`,
            `One wallet: ${SENDS} sends, ${CONCURRENCY} in flight. ${WALLETS} wallets: ${perWallet} sends each, all wallets at once.`,
            `Latency: ${LATENCY_SAMPLES} sequential sends each way; direct = viem sendTransaction + waitForTransactionReceipt (100 ms polling, as the platform's receipt watcher). Password checks after the first hit the auth cache (PLATFORM_AUTH_CACHE_SECONDS).`,
        ])
        log(`machine: ${machine()}`)
    } finally {
        await api?.stop()
        await pg.stop()
        fs.rmSync(pgDir, { recursive: true, force: true })
        await anvil.stop()
    }
}

main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`)
    process.exit(1)
})
