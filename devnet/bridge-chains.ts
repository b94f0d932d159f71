import * as fs from 'fs'
import * as path from 'path'
import { Address, createPublicClient, createWalletClient, erc20Abi, Hash, http, maxUint256, parseAbi, parseUnits, PublicClient, zeroAddress } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../abi'
import { BridgeChainRecord, bridgeChainsFile, dataDir, NativeContracts, readBridgeChains } from '../common/config'
import { Logger } from '../common/logger'
import { waitFor } from '../common/processes'
import { Anvil, DEV_MNEMONIC, startAnvil } from './anvil'
import { VaultOf } from './local-network'
import { followWallClock } from './clock'
import { DevnetEnv } from './config'
import { createPair, deployContract, deployPlatformToken, devnetChain, ZERO_FEES } from './deploy'

/** The bridge's external EVM networks (BSC, ETHEREUM, POLYGON) as local anvils with their tokens and BSC's pool: docs/bridge/README.md#local-chains-npm-start */

export type BridgeNetworkName = 'BSC' | 'ETHEREUM' | 'POLYGON'

export interface BridgeNetworkSpec {
    name: BridgeNetworkName
    chainId: number
    usdtDecimals: number
    /** finalized = latest − 2 × slots (BSC finalizes in seconds, Ethereum in two epochs). */
    slotsInAnEpoch: number
    portVariable: 'BSC_DEVNET_PORT' | 'ETHEREUM_DEVNET_PORT' | 'POLYGON_DEVNET_PORT'
    rpcVariable: 'BSC_RPC_URL' | 'ETHEREUM_RPC_URL' | 'POLYGON_RPC_URL'
}

export const BRIDGE_NETWORKS: BridgeNetworkSpec[] = [
    { name: 'BSC', chainId: 56, usdtDecimals: 18, slotsInAnEpoch: 1, portVariable: 'BSC_DEVNET_PORT', rpcVariable: 'BSC_RPC_URL' },
    { name: 'ETHEREUM', chainId: 1, usdtDecimals: 6, slotsInAnEpoch: 3, portVariable: 'ETHEREUM_DEVNET_PORT', rpcVariable: 'ETHEREUM_RPC_URL' },
    { name: 'POLYGON', chainId: 137, usdtDecimals: 6, slotsInAnEpoch: 2, portVariable: 'POLYGON_DEVNET_PORT', rpcVariable: 'POLYGON_RPC_URL' },
]

/** Price of the BSC pool at creation: 2,000 USDT per WNATIVE, as the native chain's seeded NATIVE/STABLE pool. */
const POOL_WNATIVE = 10_000n
const POOL_USDT = 20_000_000n

const ROUTER_ABI = parseAbi([
    'function addLiquidity(address tokenA, address tokenB, uint amountADesired, uint amountBDesired, uint amountAMin, uint amountBMin, address to, uint deadline) returns (uint amountA, uint amountB, uint liquidity)',
    'function addLiquidityETH(address token, uint amountTokenDesired, uint amountTokenMin, uint amountETHMin, address to, uint deadline) payable returns (uint amountToken, uint amountETH, uint liquidity)',
])
const MINT_ABI = parseAbi(['function mint(address to, uint256 amount)'])

const deployer = () => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 })

function clients(rpcUrl: string, chainId: number) {
    const chain = devnetChain(chainId, rpcUrl)
    const transport = http(rpcUrl)
    return {
        client: createPublicClient({ chain, transport, cacheTime: 0 }) as PublicClient,
        wallet: createWalletClient({ account: deployer(), chain, transport }),
    }
}

async function mined(client: PublicClient, hash: Hash, what: string): Promise<void> {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 })
    if (receipt.status !== 'success') throw new Error(`${what} reverted (${hash})`)
}

async function holdsCode(client: PublicClient, addresses: Address[]): Promise<boolean> {
    for (const address of addresses) {
        const code = await client.getCode({ address })
        if (!code || code === '0x') return false
    }
    return true
}

/** Deploys one network's tokens (and on BSC the AMM and pool); reuses a previous deployment still on chain. */
export async function provisionBridgeChain(spec: BridgeNetworkSpec, rpcUrl: string, previous?: BridgeChainRecord, log?: Logger): Promise<BridgeChainRecord> {
    const { client, wallet } = clients(rpcUrl, spec.chainId)
    if (previous) {
        const addresses = [...Object.values(previous.tokens), ...(previous.amm ? [previous.amm.factory, previous.amm.router, ...Object.values(previous.amm.pairs)] : [])]
        if (await holdsCode(client, addresses)) return { ...previous, rpcUrl }
    }
    const account = deployer()
    const token = (symbol: string, name: string, decimals: number, supply: bigint) => deployPlatformToken(rpcUrl, spec.chainId, account, {
        name, symbol, description: `${name} on the local ${spec.name} (test token)`, decimals,
        totalSupply: supply * 10n ** BigInt(decimals), mintable: true, ammFactory: zeroAddress,
    })
    const usdt = await token('USDT', 'Tether USD', spec.usdtDecimals, 1_000_000_000n)
    const record: BridgeChainRecord = { chainId: spec.chainId, rpcUrl, tokens: { USDT: usdt } }
    if (spec.name === 'BSC') {
        const wnative = await token('WNATIVE', 'Wrapped NATIVE', 18, 1_000_000n)
        // The router needs the chain's wrapped coin (WBNB's role) for its …ETH… methods.
        const wrappedCoin = (await deployContract(rpcUrl, spec.chainId, account, 'WNative', [])).address
        const factory = (await deployContract(rpcUrl, spec.chainId, account, 'AmmFactory', [account.address])).address
        const router = (await deployContract(rpcUrl, spec.chainId, account, 'AmmRouter', [factory, wrappedCoin])).address
        const pair = await createPair(rpcUrl, spec.chainId, account, factory, wnative, usdt)
        for (const t of [wnative, usdt]) {
            await mined(client, await wallet.writeContract({ address: t, abi: erc20Abi, functionName: 'approve', args: [router, maxUint256], ...ZERO_FEES }), 'approve')
        }
        await mined(client, await wallet.writeContract({
            address: router, abi: ROUTER_ABI, functionName: 'addLiquidity',
            args: [wnative, usdt, POOL_WNATIVE * 10n ** 18n, POOL_USDT * 10n ** 18n, 0n, 0n, account.address, 2n ** 40n], ...ZERO_FEES,
        }), 'addLiquidity WNATIVE/USDT')
        record.tokens.WNATIVE = wnative
        record.amm = { factory, router, wrappedCoin, pairs: { 'WNATIVE/USDT': pair } }
    }
    log?.info({ chain: spec.name, tokens: record.tokens, amm: record.amm }, 'bridge network provisioned')
    return record
}

/**
 * The native chain's NATIVE/STABLE pool for the bridge's rate engine, on a chain that has our
 * contracts but no seeded history (tests, benchmark): 10,000 NATIVE against 20,000,000 STABLE.
 */
export async function addNativePool(rpcUrl: string, chainId: number, contracts: { stable: Address; router: Address }): Promise<void> {
    const { client, wallet } = clients(rpcUrl, chainId)
    const account = deployer()
    await mined(client, await wallet.writeContract({ address: contracts.stable, abi: abis.Stable, functionName: 'mint', args: [account.address, 100_000_000_000n * 10n ** 6n], ...ZERO_FEES }), 'STABLE mint')
    await mined(client, await wallet.writeContract({ address: contracts.stable, abi: erc20Abi, functionName: 'approve', args: [contracts.router, maxUint256], ...ZERO_FEES }), 'approve')
    await mined(client, await wallet.writeContract({
        address: contracts.router, abi: ROUTER_ABI, functionName: 'addLiquidityETH',
        args: [contracts.stable, POOL_USDT * 10n ** 6n, 0n, 0n, account.address, 2n ** 40n], value: POOL_WNATIVE * 10n ** 18n, ...ZERO_FEES,
    }), 'addLiquidityETH NATIVE/STABLE')
}

export interface VaultFunding {
    /** Whole coins the vault should hold at least. */
    coin: string
    /** Whole tokens by contract address. */
    tokens: { address: Address; decimals: number; amount: string }[]
}

/**
 * Tops a bridge vault up to the given levels on a local chain: coin sent by the first development
 * account, tokens minted by it (it owns every test token). Nothing is sent for levels already met.
 */
export async function fundVault(rpcUrl: string, chainId: number, vault: Address, funding: VaultFunding): Promise<void> {
    const { client, wallet } = clients(rpcUrl, chainId)
    const coinTarget = parseUnits(funding.coin, 18)
    const coin = await client.getBalance({ address: vault })
    if (coin < coinTarget) {
        await mined(client, await wallet.sendTransaction({ to: vault, value: coinTarget - coin, ...ZERO_FEES }), 'vault coin top-up')
    }
    for (const t of funding.tokens) {
        const target = parseUnits(t.amount, t.decimals)
        const held = await client.readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [vault] })
        if (held < target) {
            await mined(client, await wallet.writeContract({ address: t.address, abi: MINT_ABI, functionName: 'mint', args: [vault, target - held], ...ZERO_FEES }), 'vault token mint')
        }
    }
}

/** Switches an anvil from a block per transaction to a block every `seconds`. */
export async function setIntervalMining(rpcUrl: string, seconds: number): Promise<void> {
    const client = createPublicClient({ transport: http(rpcUrl) })
    await client.request({ method: 'evm_setIntervalMining' as any, params: [seconds] as any })
}

export interface BridgeChains {
    records: Record<string, BridgeChainRecord>
    stop(): Promise<void>
}

/**
 * `npm start`: an anvil per network whose RPC URL is not set, kept in DATA_DIR/bridge-chains/ across
 * restarts, provisioned once, recorded in DATA_DIR/bridge-chains.json (which the bridge reads).
 */
export async function startBridgeChains(env: DevnetEnv & { readonly [K in BridgeNetworkSpec['rpcVariable']]?: string }, log: Logger): Promise<BridgeChains> {
    const previous = readBridgeChains(env)
    const records: Record<string, BridgeChainRecord> = {}
    const anvils: Anvil[] = []
    const stop = async () => {
        await Promise.allSettled(anvils.map((a) => a.stop()))
    }
    try {
        for (const spec of BRIDGE_NETWORKS) {
            if (env[spec.rpcVariable]) continue
            const anvil = await startAnvil({
                port: env[spec.portVariable],
                chainId: spec.chainId,
                stateFile: path.join(dataDir(env), 'bridge-chains', spec.name.toLowerCase(), 'state.json'),
                slotsInAnEpoch: spec.slotsInAnEpoch,
                log,
                name: `devnet:${spec.name}`,
            })
            anvils.push(anvil)
            // Provisioned with a block per transaction, then mining every 2 seconds like a live network.
            records[spec.name] = await provisionBridgeChain(spec, anvil.url, previous[spec.name], log)
            // A restart from the state file would otherwise date new blocks before a head saved
            // ahead of the wall clock.
            await followWallClock(anvil.url, log.child({ chain: spec.name }))
            await setIntervalMining(anvil.url, 2)
        }
    } catch (err) {
        await stop()
        throw err
    }
    fs.mkdirSync(path.dirname(bridgeChainsFile(env)), { recursive: true })
    fs.writeFileSync(bridgeChainsFile(env), JSON.stringify(records, null, 2) + '\n')
    return { records, stop }
}

/** Levels the launcher keeps the local vaults at: whole coins, and whole tokens of each listed token. */
const VAULT_COIN: Record<string, string> = { NATIVECHAIN: '1000', BSC: '100', ETHEREUM: '1000', POLYGON: '100000' }
const VAULT_TOKENS = { USDT: '1000000', WNATIVE: '1000', STABLE: '1000000' } as Record<string, string>

/** Once the bridge answers: its vault address on a network (GET /api/swap/config), undefined where it has none. */
export async function bridgeVaults(bridgeUrl: string): Promise<VaultOf> {
    const config = await waitFor('the bridge to answer', async () => {
        const response = await fetch(`${bridgeUrl}/api/swap/config`).catch(() => undefined)
        return response?.ok ? ((await response.json()) as { networks: { chain: string; vault_address: string | null }[] }) : undefined
    }, 120_000, 500)
    return (chain) => config.networks.find((n) => n.chain === chain)?.vault_address ?? undefined
}

/**
 * `npm start`, once the bridge answers: tops up its vaults on the chains this machine runs (the
 * native devnet when it was started here, and the local BSC, ETHEREUM and POLYGON). Never touches
 * a chain given by URL.
 */
export async function fundLocalBridgeVaults(
    vault: VaultOf,
    records: Record<string, BridgeChainRecord>,
    native: NativeContracts | undefined,
    nativeRpcUrl: string | undefined,
    nativeChainId: number,
    log: Logger
): Promise<void> {
    const funded: Record<string, Address> = {}
    const nativeVault = vault('NATIVECHAIN') as Address | undefined
    if (native && nativeRpcUrl && nativeVault) {
        await fundVault(nativeRpcUrl, nativeChainId, nativeVault, {
            coin: VAULT_COIN.NATIVECHAIN,
            tokens: [{ address: native.stable, decimals: 6, amount: VAULT_TOKENS.STABLE }],
        })
        funded.NATIVECHAIN = nativeVault
    }
    for (const [name, record] of Object.entries(records)) {
        const address = vault(name) as Address | undefined
        if (!address) continue
        const spec = BRIDGE_NETWORKS.find((n) => n.name === name)!
        await fundVault(record.rpcUrl, record.chainId, address, {
            coin: VAULT_COIN[name],
            tokens: Object.entries(record.tokens).map(([symbol, token]) => ({
                address: token, decimals: symbol === 'USDT' ? spec.usdtDecimals : 18, amount: VAULT_TOKENS[symbol],
            })),
        })
        funded[name] = address
    }
    log.info({ vaults: funded }, 'bridge vaults funded on the local chains')
}
