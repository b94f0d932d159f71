import { Account, Address, createWalletClient, encodeFunctionData, Hex, http, parseAbi } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { NativeContracts } from '../common/config'
import { Anvil, DEV_MNEMONIC, startAnvil } from '../devnet/anvil'
import { deployNativeContracts, devnetChain } from '../devnet/deploy'
import { Prng, seedDemoActivity, SeedResult } from '../devnet/seed'
import { freePort } from '../test/support/ports'
import { HistoryNode, startHistoryNode } from './history-node'

/**
 * A chain that goes on from the synthetic history: anvil forked from the history's head, our
 * contracts and a day of demo trading on top, then a block every few seconds carrying token
 * transfers and swaps from the demo traders to many recipients: docs/testing.md#benchmarks
 */

const CHAIN_ID = 3009
/** The demo history's traders (devnet/seed.ts), funded and with the router approved. */
const TRADERS = Array.from({ length: 12 }, (_, i) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 10 + i }))
/** Recipients of the live transfers: many addresses, so the address pages see new ones. */
const RECIPIENTS = 5_000
const GAS = 300_000n
const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)'])
const ROUTER = parseAbi(['function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline)'])

export interface LiveChain {
    url: string
    anvil: Anvil
    contracts: NativeContracts
    seeded: SeedResult
    /** Starts mining a block every `blockSeconds`, each with `perBlock` transactions sent just before. */
    startTraffic(): Promise<void>
    /** Transactions sent by the traffic so far, and the errors the node answered. */
    traffic: { sent: number; failed: number; lastError?: string }
    stop(): Promise<void>
}

export async function startLiveChain(options: { head: number; blockSeconds: number; perBlock: number; log: (m: string) => void }): Promise<LiveChain> {
    const history: HistoryNode = await startHistoryNode({ head: options.head, chainId: CHAIN_ID })
    let anvil: Anvil | undefined
    let timer: NodeJS.Timeout | undefined
    try {
        // Automine while the contracts and the demo history go in, each step seeing the previous one.
        anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID, fork: { url: history.url, blockNumber: options.head } })
        const url = anvil.url
        const { contracts } = await deployNativeContracts({ rpcUrl: url, chainId: CHAIN_ID })
        const seeded = await seedDemoActivity({ rpcUrl: url, chainId: CHAIN_ID, contracts, seed: 'bench-api-live', days: 1 })
        options.log(`live chain: contracts and ${seeded.transactions} demo transactions on top of block ${options.head}`)
        const chain = devnetChain(CHAIN_ID, url)
        const wallets = new Map(TRADERS.map((t) => [t.address, createWalletClient({ account: t, chain, transport: http(url) })]))
        const nonces = new Map<Address, number>()
        const rpc = (method: string, params: unknown[]) => fetch(url, {
            method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        }).then((r) => r.json() as Promise<{ result?: any; error?: { message: string } }>)
        for (const t of TRADERS) nonces.set(t.address, Number((await rpc('eth_getTransactionCount', [t.address, 'latest'])).result))
        const random = new Prng('bench-api-live traffic')
        const recipient = () => `0x${(0xa11ce000000 + random.int(0, RECIPIENTS - 1)).toString(16).padStart(40, '0')}` as Address
        const { STABLE, GOLD } = seeded.tokens
        const traffic: LiveChain['traffic'] = { sent: 0, failed: 0 }
        const send = (trader: Account, to: Address, data: Hex) => {
            const nonce = nonces.get(trader.address)!
            nonces.set(trader.address, nonce + 1)
            traffic.sent++
            wallets.get(trader.address)!.sendTransaction({ account: trader, chain, to, data, nonce, gas: GAS, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n })
                .catch((err: Error) => {
                    traffic.failed++
                    traffic.lastError = err.message.split('\n')[0]
                })
        }
        /** One block's transactions: half token transfers to new and returning recipients, half swaps. */
        const block = () => {
            for (let i = 0; i < options.perBlock; i++) {
                const trader = random.pick(TRADERS)
                if (random.next() < 0.5) {
                    const [token, amount] = random.next() < 0.5 ? [STABLE, BigInt(random.int(1, 500)) * 10n ** 6n] : [GOLD, BigInt(random.int(1, 50)) * 10n ** 17n]
                    send(trader, token, encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [recipient(), amount] }))
                } else {
                    const path = random.next() < 0.5 ? [STABLE, GOLD] : [GOLD, STABLE]
                    const amountIn = path[0] === STABLE ? BigInt(random.int(10, 1_000)) * 10n ** 6n : BigInt(random.int(1, 20)) * 10n ** 18n
                    send(trader, contracts.router, encodeFunctionData({
                        abi: ROUTER, functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens', args: [amountIn, 0n, path, trader.address, 2n ** 40n],
                    }))
                }
            }
        }
        return {
            url,
            anvil,
            contracts,
            seeded,
            traffic,
            async startTraffic() {
                // The node mines on its own clock; the transactions of each interval land in its next block.
                await rpc('evm_setAutomine', [false])
                await rpc('evm_setIntervalMining', [options.blockSeconds])
                block()
                timer = setInterval(block, options.blockSeconds * 1000)
            },
            async stop() {
                clearInterval(timer)
                await anvil?.stop()
                await history.stop()
            },
        }
    } catch (err) {
        await anvil?.stop()
        await history.stop()
        throw err
    }
}
