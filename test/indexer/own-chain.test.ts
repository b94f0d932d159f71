import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { Address, createPublicClient, createWalletClient, getContractAddress, http, maxUint256, PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../../abi'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { Anvil, DEV_MNEMONIC, startAnvil } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { newWallet, PlatformClient } from '../api/platform/support'
import { ApiProcess, PlatformProcess, startApi, startPlatformProcess } from '../support/api'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { freePort } from '../support/ports'
import { createTestDatabase } from '../support/postgres'

/** Not our devnet's 3009: nothing of ours is on this chain. */
const CHAIN_ID = 777
const START_BLOCK = 3
/** A deployer none of our deployments uses, so no address here can be one of a deployment file's. */
const deployer = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 7 })

/**
 * What an operator of another chain gets (docs/own-chain.md): chain id 777, none of our contracts
 * configured, two Uniswap-V2-compatible factories listed in DEX_FACTORIES and deployed after the
 * indexer started (so their pairs are found as they appear), and a third factory not listed.
 * Each kind of content the chain carries is one step of `activity` and one `it` below.
 */
describe('indexing a chain we did not deploy: another chain id, no contracts of ours, DEX_FACTORIES', function () {
    this.timeout(300_000)
    let anvil: Anvil
    let client: PublicClient
    let dataDir: string
    let databaseUrl: string
    let indexer: IndexerProcess | undefined
    let api: ApiProcess | undefined
    let platform: PlatformProcess | undefined
    let bridge: { process: Spawned; url: string } | undefined
    let db: Client
    let chain: Awaited<ReturnType<typeof activity>>

    // Deployments in nonce order: the listed factories' addresses are known before they exist.
    const at = (nonce: number) => getContractAddress({ from: deployer.address, nonce: BigInt(nonce) })
    const factories = { listed: at(2), second: at(4), unlisted: at(6) }

    before(async () => {
        anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID })
        client = createPublicClient({ transport: http(anvil.url) }) as PublicClient
        await client.request({ method: 'anvil_mine' as any, params: ['0x5'] as any })
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-chain-'))
        databaseUrl = await createTestDatabase('own_chain')
        const env = { CHAIN_ID: String(CHAIN_ID), DATA_DIR: dataDir }
        indexer = startIndexer({
            databaseUrl, rpcUrl: anvil.url,
            env: { ...env, INDEXER_START_BLOCK: String(START_BLOCK), DEX_FACTORIES: `${factories.listed},${factories.second}`, INDEXER_FINALITY_CONFIRMATION: '2' },
        })
        chain = await activity(anvil.url)
        expect([chain.factory, chain.secondFactory, chain.unlistedFactory]).to.deep.equal([factories.listed, factories.second, factories.unlisted])
        const head = await client.getBlock({ blockTag: 'latest' })
        await waitForIndexedBlock(databaseUrl, head.hash, indexer)
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
        api = await startApi({ databaseUrl, rpcUrl: anvil.url, env })
        platform = await startPlatformProcess({ databaseUrl, rpcUrl: anvil.url, env })
        bridge = await startBridgeOff(databaseUrl, anvil.url, env)
    })

    after(async () => {
        await db?.end()
        await bridge?.process.stop(5000)
        await platform?.stop()
        await api?.stop()
        await indexer?.stop()
        await anvil?.stop()
        if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    })

    const v2 = async (route: string) => {
        const res = await fetch(`${api!.explorerUrl}/api/v2${route}`)
        return { status: res.status, body: await res.json() as any }
    }

    it('indexes every block from INDEXER_START_BLOCK, none before', async () => {
        const head = Number(await client.getBlockNumber())
        const { rows: [range] } = await db.query('SELECT min(number) AS first, max(number) AS last, count(*)::int AS blocks FROM block')
        expect(range).to.deep.equal({ first: START_BLOCK, last: head, blocks: head - START_BLOCK + 1 })
        expect((await v2(`/blocks/${START_BLOCK - 1}`)).status).to.equal(404)
        const block = await v2(`/blocks/${head}`)
        expect(block.status).to.equal(200)
        expect(block.body.height).to.equal(head)
    })

    it('indexes transactions, served by the chain data API', async () => {
        const swap = await v2(`/transactions/${chain.swapTransaction}`)
        expect(swap.status).to.equal(200)
        expect(swap.body).to.deep.include({ hash: chain.swapTransaction, status: 'ok' })
        expect(swap.body.to.hash.toLowerCase()).to.equal(chain.router.toLowerCase())
        const { rows: [{ count }] } = await db.query('SELECT count(*)::int AS count FROM transaction')
        expect(count).to.equal(chain.transactions)
    })

    it('indexes the tokens with their metadata', async () => {
        for (const [address, symbol] of [[chain.stable, 'STABLE'], [chain.wnative, 'WNATIVE']] as const) {
            const token = await v2(`/tokens/${address}`)
            expect(token.status, symbol).to.equal(200)
            expect(token.body).to.deep.include({ symbol, type: 'ERC-20', decimals: symbol === 'STABLE' ? '6' : '18' })
        }
    })

    it('indexes NFTs: the ERC-721 with its owner, and its data: URI metadata fetched', async () => {
        const instance = await waitFor('the NFT\'s metadata', async () => {
            const { status, body } = await v2(`/tokens/${chain.nft}/instances/5`)
            return status === 200 && body.metadata ? body : undefined
        }, 60_000, 250)
        expect(instance.owner.hash).to.equal(deployer.address)
        expect(instance.token).to.deep.include({ type: 'ERC-721', symbol: 'OWN' })
        expect(instance.metadata).to.deep.equal({ name: 'five' })
    })

    it('indexes the pools of every listed factory, with reserves as the node holds them, and none of the unlisted one', async () => {
        const { rows } = await db.query(`SELECT p.id, p.token0_id, p.token1_id, p.reserve0::text, p.reserve1::text, p.swaps_total, a.creator
            FROM pair p JOIN address a ON a.id = p.id ORDER BY p.id`)
        const expected = await Promise.all([chain.pair, chain.secondPair].map(async (pair) => {
            const [reserve0, reserve1] = await client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'getReserves' })
            const token0 = await client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'token0' })
            const token1 = await client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'token1' })
            return { id: pair.toLowerCase(), token0_id: token0.toLowerCase(), token1_id: token1.toLowerCase(), reserve0: String(reserve0), reserve1: String(reserve1) }
        }))
        expect(rows.map(({ swaps_total, creator, ...r }) => r)).to.deep.equal(expected.sort((a, b) => (a.id < b.id ? -1 : 1)))
        const byId = new Map(rows.map((r) => [r.id, r]))
        expect(byId.get(chain.pair.toLowerCase())).to.include({ swaps_total: 1, creator: chain.factory.toLowerCase() })
        expect(byId.get(chain.secondPair.toLowerCase())).to.include({ swaps_total: 0, creator: chain.secondFactory.toLowerCase() })
        expect(byId.has(chain.unlistedPair.toLowerCase())).to.equal(false)
        const { rows: swaps } = await db.query('SELECT pair_id, transaction_hash, amount0_in::text, amount1_in::text FROM swap')
        expect(swaps).to.have.length(1)
        expect(swaps[0]).to.include({ pair_id: chain.pair.toLowerCase(), transaction_hash: chain.swapTransaction })
    })

    it('leaves prices unknown and quote figures unpriced without WNATIVE and STABLE, and does not verify another DEX\'s pairs as ours', async () => {
        const { rows: tokens } = await db.query('SELECT derived_quote FROM token')
        expect(tokens.length).to.be.greaterThan(0)
        expect(tokens.every((t) => t.derived_quote === null)).to.equal(true)
        const { rows: [swap] } = await db.query('SELECT volume::text FROM swap')
        expect(swap.volume).to.equal('0')
        const { rows: verified } = await db.query('SELECT id FROM verified_contract WHERE id = ANY($1)', [[chain.pair.toLowerCase(), chain.secondPair.toLowerCase()]])
        expect(verified).to.deep.equal([])
    })

    it('the explorer\'s DeFi routes, the wallet platform\'s chain routes and the bridge say they are off', async () => {
        const defi = await fetch(`${api!.explorerUrl}/api/defi/pools`)
        expect(defi.status).to.equal(503)
        const health = await (await fetch(`${platform!.platformUrl}/health`)).json() as any
        expect(health).to.include({ chainId: String(CHAIN_ID), rpcConfigured: false })
        // Wallets are kept without a chain; what reads or writes the chain is off.
        const http = new PlatformClient(platform!.platformUrl)
        const wallet = await newWallet(http, 'own-chain-user', 'correct horse battery')
        const balance = await http.get(`/api/wallet/balance/${wallet}`, { user_id: 'own-chain-user' }, 'correct horse battery')
        expect(balance.status).to.equal(503)
        expect(balance.body.error).to.match(/^Every chain route of the wallet platform is off: our contracts are not configured; set WNATIVE_ADDRESS, STABLE_ADDRESS, AMM_FACTORY_ADDRESS and AMM_ROUTER_ADDRESS/)
        const ready = await fetch(`${bridge!.url}/ready`)
        expect(ready.status).to.equal(503)
        expect(((await ready.json()) as any).checks.contracts).to.match(/^the bridge is off: our contracts are not configured; set WNATIVE_ADDRESS/)
        const config = await fetch(`${bridge!.url}/api/swap/config`)
        expect(config.status).to.equal(503)
        expect(((await config.json()) as any).error).to.deep.include({ code: 'bridge_off' })
        expect((await fetch(`${bridge!.url}/health`)).status).to.equal(200)
    })
})

/**
 * The chain's content, sent by `deployer` in a fixed nonce order: WNATIVE-like and STABLE-like
 * tokens (our artifacts, deployed fresh, not configured as ours), a listed factory and its router
 * with a pool and a swap, a second listed factory with a pool of the same two tokens, and an
 * unlisted factory with a pair. Returns what the assertions check and how many transactions it sent.
 */
async function activity(rpcUrl: string) {
    const chain = devnetChain(CHAIN_ID, rpcUrl)
    const publicClient = createPublicClient({ chain, transport: http(rpcUrl) })
    const wallet = createWalletClient({ account: deployer, chain, transport: http(rpcUrl) })
    const mined = async (hash: `0x${string}`) => {
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
        return hash
    }
    const deploy = (...args: Parameters<typeof deployContract> extends [any, any, any, ...infer R] ? R : never) =>
        deployContract(rpcUrl, CHAIN_ID, deployer, ...args).then((d) => d.address)
    const wnative = await deploy('WNative', [])
    const stable = await deploy('Stable', [deployer.address])
    const factory = await deploy('AmmFactory', [deployer.address])
    const router = await deploy('AmmRouter', [factory, wnative])
    const secondFactory = await deploy('AmmFactory', [deployer.address])
    const secondRouter = await deploy('AmmRouter', [secondFactory, wnative])
    const unlistedFactory = await deploy('AmmFactory', [deployer.address])
    const deadline = 2n ** 40n
    await mined(await wallet.writeContract({ address: stable, abi: abis.Stable, functionName: 'mint', args: [deployer.address, 10n ** 12n], ...ZERO_FEES }))
    for (const spender of [router, secondRouter]) {
        await mined(await wallet.writeContract({ address: stable, abi: abis.Stable, functionName: 'approve', args: [spender, maxUint256], ...ZERO_FEES }))
    }
    const addLiquidity = async (via: Address, stableAmount: bigint, coin: bigint) => mined(await wallet.writeContract({
        address: via, abi: abis.AmmRouter, functionName: 'addLiquidityETH',
        args: [stable, stableAmount, 0n, 0n, deployer.address, deadline], value: coin, ...ZERO_FEES,
    }))
    await addLiquidity(router, 50_000n * 10n ** 6n, 20n * 10n ** 18n)
    const swapTransaction = await mined(await wallet.writeContract({
        address: router, abi: abis.AmmRouter, functionName: 'swapExactETHForTokens',
        args: [0n, [wnative, stable], deployer.address, deadline], value: 10n ** 17n, ...ZERO_FEES,
    }))
    await addLiquidity(secondRouter, 1_000n * 10n ** 6n, 10n ** 18n)
    await mined(await wallet.writeContract({ address: unlistedFactory, abi: abis.AmmFactory, functionName: 'createPair', args: [wnative, stable], ...ZERO_FEES }))
    const pairOf = (f: Address) => publicClient.readContract({ address: f, abi: abis.AmmFactory, functionName: 'getPair', args: [wnative, stable] })
    const nft = await deploy('TestErc721', ['Own Chain NFT', 'OWN'])
    await mined(await wallet.writeContract({ address: nft, abi: abis.TestErc721, functionName: 'mint', args: [deployer.address, 5n, 'data:application/json,{"name":"five"}'], ...ZERO_FEES }))
    return {
        wnative, stable, factory, router, secondFactory, unlistedFactory, swapTransaction, nft,
        pair: await pairOf(factory), secondPair: await pairOf(secondFactory), unlistedPair: await pairOf(unlistedFactory),
        // 8 deployments, 2 mints, 2 approvals, 2 liquidity additions, a swap, a createPair
        transactions: 16,
    }
}

/** The real bridge process with none of our contracts: it must come up, off. */
async function startBridgeOff(databaseUrl: string, rpcUrl: string, env: Record<string, string>) {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const proc = spawnManaged(process.execPath, [path.resolve(__dirname, '../../bridge/main.js')], {
        name: 'bridge-off',
        env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, RPC_URL: rpcUrl, MASTER_KEY: '11'.repeat(32), BRIDGE_PORT: String(port), ...env },
    })
    await Promise.race([
        waitFor('the bridge to listen', () => fetch(`${url}/health`).then(() => true, () => false), 60_000, 100),
        proc.exited.then((code) => {
            throw new Error(`the bridge exited with ${code}`)
        }),
    ])
    return { process: proc, url }
}
