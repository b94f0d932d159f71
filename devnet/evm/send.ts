import { Address, createPublicClient, createWalletClient, erc20Abi, getAddress, Hash, http, isAddress } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { parseUnits } from '../../bridge/amounts'
import { chainSpec } from '../../bridge/registry'
import { nativeChain, ZERO_FEES } from '../../common/chain'
import { DEV_MNEMONIC } from '../anvil'

/** `npm run devnet -- send <NATIVECHAIN|BSC|ETHEREUM|POLYGON> <address> <amount> [TOKEN]`: the coin or a token from development key 0 (docs/bridge/README.md#local-chains-npm-start). */

export const EVM_NETWORKS = ['NATIVECHAIN', 'BSC', 'ETHEREUM', 'POLYGON'] as const
export type EvmNetwork = (typeof EVM_NETWORKS)[number]

export interface EvmTarget {
    rpcUrl: string
    chainId: number
    /** Token contracts by symbol, from the devnet's records in DATA_DIR. */
    tokens: Record<string, Address>
}

/** The network's coin symbol (NATIVE, BNB, ETH, POL), as the bridge lists it. */
export function coinSymbol(network: EvmNetwork): string {
    const spec = chainSpec(network)!
    return (spec.tokens.find((t) => t.kind === 'coin') ?? spec.feeCoin)!.symbol
}

/** Sends the coin (no token, or the coin's symbol) or an ERC-20 by symbol; the transaction hash once mined. */
export async function sendEvm(network: EvmNetwork, target: EvmTarget, to: string, amount: string, token?: string): Promise<Hash> {
    if (!isAddress(to)) throw new Error(`"${to}" is not an EVM address (0x and 40 hex digits)`)
    const recipient = getAddress(to)
    const chain = nativeChain(target.chainId, target.rpcUrl)
    const client = createPublicClient({ chain, transport: http(target.rpcUrl) })
    const wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 }), chain, transport: http(target.rpcUrl) })
    let hash: Hash
    if (token === undefined || token.toUpperCase() === coinSymbol(network)) {
        hash = await wallet.sendTransaction({ to: recipient, value: parseUnits(amount, 18), ...ZERO_FEES })
    } else {
        const symbol = Object.keys(target.tokens).find((s) => s.toUpperCase() === token.toUpperCase())
        if (!symbol) throw new Error(`${network} has no token ${token} in the devnet's records; known: ${[coinSymbol(network), ...Object.keys(target.tokens)].join(', ')}`)
        const address = target.tokens[symbol]
        const decimals = await client.readContract({ address, abi: erc20Abi, functionName: 'decimals' })
        hash = await wallet.writeContract({ address, abi: erc20Abi, functionName: 'transfer', args: [recipient, parseUnits(amount, decimals)], ...ZERO_FEES })
    }
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 250 })
    if (receipt.status !== 'success') throw new Error(`the transaction reverted: ${hash}`)
    return hash
}
