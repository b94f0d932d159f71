import { Address, encodeFunctionData, erc20Abi, Hex, keccak256, PublicClient } from 'viem'
import { nextNonce } from '../../../common/evm/transactions'
import { Asset } from '../../config'
import { KeyManager, KeyRole } from '../../keys'
import { InsufficientForFeeError, SignedTransfer, TransferRequest } from '../adapter'

/** Gas a token transfer may take when it cannot be estimated yet (standard ERC-20s use 35-65k). */
const TOKEN_TRANSFER_GAS = 100_000n
const COIN_TRANSFER_GAS = 21_000n

/** What signing and sending on one EVM network needs. */
export interface EvmSigner {
    client: PublicClient
    keys: KeyManager
    chainId: number
    /** The native chain's minimum gas price is 0: every transaction there is sent with zero fees. */
    zeroFees: boolean
}

/** An EIP-1559 transaction before its nonce is chosen. */
export interface UnsignedTx {
    to: Address
    value: bigint
    data?: Hex
    gas: bigint
    maxFeePerGas: bigint
    maxPriorityFeePerGas: bigint
}

export async function fees(signer: EvmSigner): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    if (signer.zeroFees) return { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
    const [block, tip] = await Promise.all([
        signer.client.getBlock({ blockTag: 'latest' }),
        signer.client.request({ method: 'eth_maxPriorityFeePerGas' }).then((v) => BigInt(v), () => 1_000_000_000n),
    ])
    const base = block.baseFeePerGas ?? 0n
    // Twice the base fee: room for six full blocks of increases before the transaction would wait.
    return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip }
}

async function coinGas(client: PublicClient, from: Address, to: Address): Promise<bigint> {
    const code = await client.getCode({ address: to })
    if (!code || code === '0x') return COIN_TRANSFER_GAS
    // A contract recipient may run code on receipt.
    const estimated = await client.estimateGas({ account: from, to, value: 1n })
    return (estimated * 5n) / 4n
}

export async function transferFee(signer: EvmSigner, asset: Asset, from: string, to: string): Promise<bigint> {
    if (signer.zeroFees) return 0n
    const current = await fees(signer)
    const gas = asset.kind === 'coin' ? await coinGas(signer.client, from as Address, to as Address) : TOKEN_TRANSFER_GAS
    return gas * current.maxFeePerGas
}

export async function signTransfer(signer: EvmSigner, request: TransferRequest, reservedSequences: number[]): Promise<SignedTransfer> {
    const { client } = signer
    const from = await signer.keys.evmAddress(request.from)
    const to = request.to as Address
    let { maxFeePerGas, maxPriorityFeePerGas } = await fees(signer)
    let value = 0n
    let data: Hex | undefined
    let target: Address
    let gas: bigint
    let amount: bigint
    if (request.asset.kind === 'coin') {
        target = to
        gas = await coinGas(client, from, to)
        if (request.amount === 'all') {
            const balance = await client.getBalance({ address: from })
            // A gather takes the credited deposit only; what else arrived stays for its own refund.
            const sweepable = request.only && request.only.amount < balance ? request.only.amount : balance
            value = sweepable - gas * maxFeePerGas
            if (value <= 0n) throw new InsufficientForFeeError(`balance ${balance} does not cover the network fee`)
        } else {
            value = request.amount
        }
        amount = value
    } else {
        if (request.amount === 'all') throw new Error('a token transfer needs an amount')
        amount = request.amount
        target = request.asset.address as Address
        data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] })
        const estimated = await client.estimateGas({ account: from, to: target, data }).catch(() => TOKEN_TRANSFER_GAS)
        gas = (estimated * 5n) / 4n
        if (!signer.zeroFees) {
            // An address topped up for one transfer pays what it holds, if that is below our estimate.
            const coin = await client.getBalance({ address: from })
            if (gas * maxFeePerGas > coin) {
                maxFeePerGas = coin / gas
                if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
            }
        }
    }
    return sign(signer, request.from, from, { to: target, value, data, gas, maxFeePerGas, maxPriorityFeePerGas }, reservedSequences, amount)
}

export async function sign(
    signer: EvmSigner,
    role: KeyRole,
    from: Address,
    tx: UnsignedTx,
    reservedSequences: number[],
    amount: bigint
): Promise<SignedTransfer> {
    const nonce = await nextNonce(signer.client, from, reservedSequences)
    const raw = await signer.keys.withSeed('evm', (seedBytes) =>
        KeyManager.evmAccount(seedBytes, role).signTransaction({ chainId: signer.chainId, type: 'eip1559', nonce, ...tx })
    )
    return { from, hash: keccak256(raw), raw, nonce, amount }
}
