import { Address, Hash, Hex, keccak256, LocalAccount, numberToHex, TransactionReceipt } from 'viem'
import { Logger } from '../../common/logger'
import { ChainService } from './chain'
import { explainChainError } from './chain-errors'
import { HttpError, PendingTransactionError } from './http'
import { NonceManager } from './nonce-manager'
import { ReceiptWatcher } from './receipts'

/** One transaction of a plan; `to` undefined deploys a contract. */
export interface TxStep {
    to?: Address
    data: Hex
    value?: bigint
}

export interface ExecutedPlan {
    hashes: Hash[]
    receipts: TransactionReceipt[]
    /** The receipt of the plan's last (main) transaction. */
    receipt: TransactionReceipt
}

/**
 * Sends a plan (say, an approval and then a swap) from a platform wallet: the whole plan is
 * simulated first, so a plan that would revert sends nothing and uses no nonce; then each
 * transaction is signed here and sent with the wallet's next nonce; then the receipts are
 * awaited, with a time limit.
 */
export class TxSender {
    constructor(
        private readonly chain: ChainService,
        private readonly nonces: NonceManager,
        private readonly receipts: ReceiptWatcher,
        private readonly timeoutMs: number,
        private readonly log: Logger
    ) {}

    async execute(account: LocalAccount, steps: TxStep[]): Promise<ExecutedPlan> {
        let gas: bigint[]
        try {
            gas = await this.simulate(account.address, steps)
        } catch (err) {
            if (!isUnsupportedMethod(err)) throw explainChainError(err)
            // A node without eth_simulateV1: run the preparatory steps for real, then the main one.
            return this.executeStepwise(account, steps)
        }
        const hashes: Hash[] = []
        for (let i = 0; i < steps.length; i++) hashes.push(await this.sendOne(account, steps[i], gas[i]))
        const receipts = await this.await(hashes)
        await this.checkStatus(account.address, steps, receipts, gas)
        return { hashes, receipts, receipt: receipts[receipts.length - 1] }
    }

    private async executeStepwise(account: LocalAccount, steps: TxStep[]): Promise<ExecutedPlan> {
        const hashes: Hash[] = []
        const receipts: TransactionReceipt[] = []
        for (const step of steps) {
            const [gas] = await this.simulate(account.address, [step]).catch((err) => {
                throw explainChainError(err)
            })
            const hash = await this.sendOne(account, step, gas)
            const [receipt] = await this.await([hash])
            await this.checkStatus(account.address, [step], [receipt], [gas])
            hashes.push(hash)
            receipts.push(receipt)
        }
        return { hashes, receipts, receipt: receipts[receipts.length - 1] }
    }

    /** Gas limits of the steps, or the error of the first that would revert. */
    private async simulate(from: Address, steps: TxStep[]): Promise<bigint[]> {
        if (steps.length === 1) {
            const estimate = await this.chain.client.request({ method: 'eth_estimateGas', params: [rpcCall(from, steps[0])] })
            return [withMargin(BigInt(estimate), steps[0])]
        }
        const blocks = (await this.chain.client.request({
            method: 'eth_simulateV1' as any,
            params: [{ blockStateCalls: [{ calls: steps.map((s) => rpcCall(from, s)) }], validation: false }, 'latest'] as any,
        })) as unknown as SimulatedBlock[]
        const calls = blocks?.[0]?.calls
        if (!Array.isArray(calls) || calls.length !== steps.length) throw new Error('eth_simulateV1 returned an unexpected result')
        return calls.map((call, i) => {
            if (call.status !== '0x1') {
                throw Object.assign(new Error(call.error?.message ?? 'execution reverted'), {
                    details: call.error?.message,
                    data: call.error?.data ?? call.returnData,
                })
            }
            // gasUsed is after refunds, so below the limit the call needs: half again on top.
            return withMargin((BigInt(call.gasUsed) * 3n) / 2n, steps[i])
        })
    }

    private sendOne(account: LocalAccount, step: TxStep, gas: bigint): Promise<Hash> {
        return this.nonces.send(account.address, async (nonce) => {
            const serialized = await account.signTransaction!({
                type: 'eip1559',
                chainId: this.chain.chainId,
                nonce,
                gas,
                maxFeePerGas: 0n,
                maxPriorityFeePerGas: 0n,
                to: step.to ?? null,
                data: step.data,
                value: step.value ?? 0n,
            })
            const hash = keccak256(serialized)
            try {
                await this.chain.client.request({ method: 'eth_sendRawTransaction', params: [serialized] })
            } catch (err) {
                if (/already known/i.test(String((err as any)?.details ?? (err as Error)?.message))) return hash
                throw err
            }
            return hash
        }).catch((err) => {
            throw explainChainError(err)
        })
    }

    private async await(hashes: Hash[]): Promise<TransactionReceipt[]> {
        const receipts = await Promise.all(hashes.map((h) => this.receipts.wait(h, this.timeoutMs)))
        const missing = receipts.findIndex((r) => !r)
        if (missing >= 0) throw new PendingTransactionError(hashes[hashes.length - 1])
        return receipts as TransactionReceipt[]
    }

    /** A mined revert (the state moved after the simulation): the reason, replayed just before its block. */
    private async checkStatus(from: Address, steps: TxStep[], receipts: TransactionReceipt[], gas: bigint[]): Promise<void> {
        const failed = receipts.findIndex((r) => r.status !== 'success')
        if (failed < 0) return
        const receipt = receipts[failed]
        const prefix = `Transaction ${receipt.transactionHash} was mined but reverted: `
        if (receipt.gasUsed >= gas[failed]) {
            this.log.warn({ hash: receipt.transactionHash, gas: gas[failed] }, 'platform transaction ran out of gas')
            throw new HttpError(409, `${prefix}it ran out of gas (the state changed after the estimate); send it again`)
        }
        try {
            await this.chain.client.request({
                method: 'eth_call',
                params: [rpcCall(from, steps[failed]), numberToHex(receipt.blockNumber - 1n)],
            })
        } catch (err) {
            const explained = explainChainError(err, prefix)
            throw new HttpError(409, explained.message)
        }
        throw new HttpError(409, `${prefix}the pool or balances changed between the simulation and the block; quote again and retry`)
    }
}

/**
 * A gas limit that survives the state moving between estimate and inclusion. The classic case:
 * an AMM pair estimated in the same second as its last update skips the price accumulators, and
 * mined a second later writes them (two storage slots per pair, up to ~44,000 gas each hop).
 * Contract calls get a wide fixed margin; the zero gas price makes unused gas free.
 */
function withMargin(estimate: bigint, step: TxStep): bigint {
    const isCall = step.to === undefined || step.data !== '0x'
    return (estimate * 13n) / 10n + (isCall ? 150_000n : 0n)
}

interface SimulatedBlock {
    calls: { status: string; gasUsed: Hex; returnData: Hex; error?: { message?: string; code?: number; data?: Hex } }[]
}

function rpcCall(from: Address, step: TxStep) {
    return {
        from,
        ...(step.to ? { to: step.to } : {}),
        data: step.data,
        ...(step.value ? { value: numberToHex(step.value) } : {}),
    }
}

function isUnsupportedMethod(err: unknown): boolean {
    let current: any = err
    for (let depth = 0; current && depth < 10; depth++) {
        if (current.code === -32601 || /method not found|method .*(does not exist|not supported|not available)/i.test(`${current.details ?? ''}`)) return true
        current = current.cause
    }
    return false
}
