import { Address, createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseAbiItem, PublicClient } from 'viem'
import { EsploraBackend } from '../../bridge/chains/bitcoin/esplora'
import { nativeChain, ZERO_FEES } from '../../common/chain'
import { regtestAddress } from '../bitcoin/keys'
import { payBitcoin } from '../bitcoin/wallet'
import { providerBitcoinKey, providerEvmAccount } from './keys'

/** How the local provider takes deposits and pays out on one currency's network, through that network's public API: docs/bridge/README.md#local-chains-npm-start */

export interface Received {
    txid: string
    /** Base units. */
    amount: bigint
    confirmed: boolean
}

export interface Rail {
    /** Decimal places of the currency's base unit. */
    decimals: number
    /** The treasury's address: the launcher funds it, payouts leave from it. */
    treasury: string
    /** The deposit address of the provider's n-th exchange (n from 1). */
    depositAddress(n: number): string
    /** What reached a deposit address (each exchange has its own, never reused). */
    received(address: string): Promise<Received | undefined>
    /** Pays from the treasury; the transaction id. */
    pay(to: string, amount: bigint): Promise<string>
    confirmed(txid: string): Promise<boolean>
}

/** BTC on the local Bitcoin network, over its Esplora API. */
export function bitcoinRail(esploraUrl: string): Rail {
    const esplora = new EsploraBackend(esploraUrl)
    return {
        decimals: 8,
        treasury: regtestAddress(providerBitcoinKey(0)),
        depositAddress: (n) => regtestAddress(providerBitcoinKey(n)),
        received: async (address) => {
            // Deposit addresses are never spent from: their unspent outputs are everything they received.
            const utxos = await esplora.addressUtxos(address)
            if (utxos.length === 0) return undefined
            return { txid: utxos[0].txid, amount: utxos.reduce((sum, u) => sum + u.value, 0n), confirmed: utxos.every((u) => u.status.confirmed) }
        },
        pay: (to, amount) => payBitcoin(esploraUrl, providerBitcoinKey(0), to, amount),
        confirmed: async (txid) => (await esplora.txStatus(txid))?.confirmed === true,
    }
}

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** An ERC-20 on a local EVM network, over its JSON-RPC; a deposit counts once mined. */
export function erc20Rail(rpcUrl: string, chainId: number, token: Address, decimals: number): Rail {
    const chain = nativeChain(chainId, rpcUrl)
    const client = createPublicClient({ chain, transport: http(rpcUrl), cacheTime: 0 }) as PublicClient
    const treasury = providerEvmAccount(0)
    const wallet = createWalletClient({ account: treasury, chain, transport: http(rpcUrl) })
    return {
        decimals,
        treasury: treasury.address,
        depositAddress: (n) => providerEvmAccount(n).address,
        received: async (address) => {
            // A local chain is short enough to search whole for the transfers into a fresh address.
            const logs = await client.getLogs({ address: token, event: TRANSFER, args: { to: getAddress(address) }, fromBlock: 0n, toBlock: 'latest' })
            if (logs.length === 0) return undefined
            return { txid: logs[0].transactionHash!, amount: logs.reduce((sum, l) => sum + l.args.value!, 0n), confirmed: true }
        },
        pay: (to, amount) => wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [getAddress(to), amount], ...ZERO_FEES }),
        confirmed: async (txid) => {
            const receipt = await client.getTransactionReceipt({ hash: txid as `0x${string}` }).catch(() => undefined)
            if (receipt && receipt.status !== 'success') throw new Error(`payout ${txid} reverted`)
            return receipt !== undefined
        },
    }
}
