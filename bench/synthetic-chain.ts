import * as fs from 'fs'
import * as path from 'path'
import {
    Address, createPublicClient, createWalletClient, encodeFunctionData, Hex, http, keccak256, maxUint256, parseAbi, parseUnits,
    PublicClient, toHex,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { NativeContracts } from '../common/config'
import { DEV_MNEMONIC, startAnvil } from '../devnet/anvil'
import { deployContract, deployNativeContracts, deployPlatformToken, devnetChain } from '../devnet/deploy'

/**
 * A chain for the indexer benchmark: per block, one disperse transaction paying six holders in
 * STABLE (six Transfer logs) and one two-hop swap STABLE -> GOLD -> WNATIVE (seven logs: Transfer,
 * Transfer, Sync, Swap, Transfer, Sync, Swap). Built once and cached as an anvil state dump.
 */

const CHAIN_ID = 3009
const RECIPIENTS = 5_000
const TRADERS = 20
const ROUTER = parseAbi([
    'function addLiquidity(address, address, uint, uint, uint, uint, address, uint) returns (uint, uint, uint)',
    'function addLiquidityETH(address, uint, uint, uint, address, uint) payable returns (uint, uint, uint)',
    'function swapExactTokensForTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[])',
])
const ERC20 = parseAbi([
    'function approve(address, uint256) returns (bool)',
    'function transfer(address, uint256) returns (bool)',
    'function mint(address, uint256)',
])
const DISPERSE = parseAbi(['function disperseToken(address token, address[] recipients, uint256[] amounts)'])

/**
 * Who sends the chain's transactions: `few` (the deployer and 20 traders, the chain every earlier
 * figure was measured on), or `fresh`: the same two transactions per block and a third, a plain
 * transfer of nothing from a key never seen before, so that every block brings a new sender (the
 * per-sender facts of the active-accounts lines grow with the senders, not with the blocks).
 */
export type SyntheticSenders = 'few' | 'fresh'

/** The fresh sender of block b (a fixed key, so the cached chain can be built again the same). */
const freshSender = (b: number) => privateKeyToAccount(keccak256(toHex(`bench fresh sender ${b}`)))

export interface SyntheticChain {
    stateFile: string
    contracts: NativeContracts
    head: number
    transactions: number
}

export const CACHE_DIR = path.resolve(__dirname, '../../bench/.cache')

export async function ensureSyntheticChain(blocks: number, port: number, log: (m: string) => void, senders: SyntheticSenders = 'few'): Promise<SyntheticChain> {
    const stateFile = path.join(CACHE_DIR, senders === 'few' ? `chain-${blocks}.json` : `chain-${blocks}-fresh-senders.json`)
    const metaFile = `${stateFile}.meta.json`
    if (fs.existsSync(stateFile) && fs.existsSync(metaFile)) return JSON.parse(fs.readFileSync(metaFile, 'utf8'))
    fs.mkdirSync(CACHE_DIR, { recursive: true })
    const started = Date.now()
    const anvil = await startAnvil({ port, chainId: CHAIN_ID, stateFile, genesisTimestamp: Math.floor(Date.now() / 1000) - 86_400 })
    try {
        const chain = devnetChain(CHAIN_ID, anvil.url)
        const client = createPublicClient({ chain, transport: http(anvil.url, { timeout: 300_000 }) }) as PublicClient
        const deployer = mnemonicToAccount(DEV_MNEMONIC)
        const { contracts } = await deployNativeContracts({ rpcUrl: anvil.url, chainId: CHAIN_ID })
        const gold = await deployPlatformToken(anvil.url, CHAIN_ID, deployer, {
            name: 'Gold Token', symbol: 'GOLD', totalSupply: parseUnits('1000000000', 18), ammFactory: contracts.factory,
        })
        const disperse = (await deployContract(anvil.url, CHAIN_ID, deployer, 'Disperse', [])).address
        const traders = Array.from({ length: TRADERS }, (_, i) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 100 + i }))
        const fees = { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
        const walletOf = (account: typeof deployer) => createWalletClient({ account, chain, transport: http(anvil.url) })
        const send = (account: typeof deployer, to: Address, data: Hex, value = 0n) =>
            walletOf(account).sendTransaction({ to, data, value, ...fees }).then((hash) =>
                client.waitForTransactionReceipt({ hash, pollingInterval: 20 }).then((r) => {
                    if (r.status !== 'success') throw new Error(`setup transaction to ${to} reverted`)
                }))
        await send(deployer, contracts.stable, encodeFunctionData({ abi: ERC20, functionName: 'mint', args: [deployer.address, 10n ** 18n] }))
        for (const token of [contracts.stable, gold]) {
            await send(deployer, token, encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [contracts.router, maxUint256] }))
        }
        await send(deployer, contracts.stable, encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [disperse, maxUint256] }))
        await send(deployer, contracts.router, encodeFunctionData({ abi: ROUTER, functionName: 'addLiquidity', args: [gold, contracts.stable, parseUnits('10000000', 18), parseUnits('500000000', 6), 0n, 0n, deployer.address, maxUint256] }))
        await send(deployer, contracts.router, encodeFunctionData({ abi: ROUTER, functionName: 'addLiquidityETH', args: [gold, parseUnits('10000000', 18), 0n, 0n, deployer.address, maxUint256] }), parseUnits('100000', 18))
        for (const trader of traders) {
            await walletOf(deployer).sendTransaction({ to: trader.address, value: parseUnits('10', 18), ...fees })
            await send(deployer, contracts.stable, encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [trader.address, parseUnits('10000000', 6)] }))
            await send(trader, contracts.stable, encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [contracts.router, maxUint256] }))
        }

        // Two transactions per block: the block gas limit admits exactly two of the declared gas (and,
        // with fresh senders, room for two plain transfers, which anvil may pack unevenly).
        const gas = 400_000n
        const limit = gas * 2n + (senders === 'fresh' ? 42_000n : 0n)
        await client.request({ method: 'evm_setBlockGasLimit' as any, params: [`0x${limit.toString(16)}`] as any })
        await client.request({ method: 'evm_setAutomine' as any, params: [false] as any })
        const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `0x${(0xbe00000 + i).toString(16).padStart(40, '0')}` as Address)
        let deployerNonce = await client.getTransactionCount({ address: deployer.address })
        const traderNonces = await Promise.all(traders.map((t) => client.getTransactionCount({ address: t.address })))
        const startBlock = Number(await client.getBlockNumber({ cacheTime: 0 }))
        const chunk = 500
        let transactions = 0
        for (let first = 0; first < blocks; first += chunk) {
            const count = Math.min(chunk, blocks - first)
            const raw: Hex[] = []
            for (let b = first; b < first + count; b++) {
                const to = Array.from({ length: 6 }, (_, i) => recipients[(b * 6 + i) % RECIPIENTS])
                raw.push(await deployer.signTransaction({
                    chainId: CHAIN_ID, type: 'eip1559', nonce: deployerNonce++, gas, ...fees, to: disperse,
                    data: encodeFunctionData({ abi: DISPERSE, functionName: 'disperseToken', args: [contracts.stable, to, to.map((_, i) => BigInt(1_000 + b + i))] }),
                }))
                const t = b % TRADERS
                raw.push(await traders[t].signTransaction({
                    chainId: CHAIN_ID, type: 'eip1559', nonce: traderNonces[t]++, gas, ...fees, to: contracts.router,
                    data: encodeFunctionData({ abi: ROUTER, functionName: 'swapExactTokensForTokens', args: [BigInt(10_000_000 + b * 1_000), 0n, [contracts.stable, gold, contracts.wnative], traders[t].address, maxUint256] }),
                }))
                // Zero fees: a key holding nothing can send.
                if (senders === 'fresh') raw.push(await freshSender(b).signTransaction({ chainId: CHAIN_ID, type: 'eip1559', nonce: 0, gas: 21_000n, ...fees, to: to[0], value: 0n }))
            }
            for (let i = 0; i < raw.length; i += 100) {
                await fetch(anvil.url, {
                    method: 'POST',
                    headers: { 'content-type': 'application/json' },
                    body: JSON.stringify(raw.slice(i, i + 100).map((tx, j) => ({ jsonrpc: '2.0', id: j, method: 'eth_sendRawTransaction', params: [tx] }))),
                })
            }
            await client.request({ method: 'anvil_mine' as any, params: [`0x${count.toString(16)}`] as any })
            // What an uneven packing left: mined before the next chunk is sent.
            while (Number((await client.request({ method: 'txpool_status' as any }) as { pending: string }).pending) > 0) {
                await client.request({ method: 'anvil_mine' as any, params: ['0x1'] as any })
            }
            transactions += raw.length
            log(`synthetic chain: ${first + count} / ${blocks} blocks`)
        }
        const head = Number(await client.getBlockNumber({ cacheTime: 0 }))
        // Every synthetic transaction succeeded when every one left its logs (a reverted one leaves
        // none): 6 per disperse and 7 per swap. anvil packs blocks by gas used, so the count is
        // checked over the whole range, not per block.
        let logs = 0
        // 500 blocks hold about 6,500 logs: well under viem's 10 MB response limit.
        for (let from = startBlock + 1; from <= head; from += 500) {
            logs += (await client.getLogs({ fromBlock: BigInt(from), toBlock: BigInt(Math.min(head, from + 499)) })).length
        }
        if (logs !== blocks * 13) throw new Error(`expected ${blocks * 13} logs from the synthetic transactions, found ${logs}`)
        const meta: SyntheticChain = { stateFile, contracts, head, transactions }
        await anvil.stop()
        fs.writeFileSync(metaFile, JSON.stringify(meta, null, 2))
        log(`synthetic chain built in ${Math.round((Date.now() - started) / 1000)} s`)
        return meta
    } catch (err) {
        await anvil.stop()
        fs.rmSync(stateFile, { force: true })
        throw err
    }
}
