import { randomUUID } from 'crypto'
import { DatabaseError } from 'pg'
import { Address, Hash, Hex, LocalAccount, numberToHex, TransactionReceipt } from 'viem'
import { Logger } from '../../common/logger'
import { ChainService } from './chain'
import { explainChainError } from './chain-errors'
import { HttpError, PendingTransactionError, unavailable } from './http'
import { ReceiptWatcher } from './receipts'
import { PlatformTx, WalletTransactions } from './wallet-txs'

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
 * transaction is signed with the wallet's next nonce, stored and broadcast (wallet-txs.ts); then
 * the receipts are awaited, with a time limit. What is not mined by then is followed after the
 * request ends (docs/sending.md).
 */
export class TxSender {
    constructor(
        private readonly chain: ChainService,
        private readonly txs: WalletTransactions,
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
        const request = randomUUID()
        const sent: PlatformTx[] = []
        try {
            for (let i = 0; i < steps.length; i++) sent.push(await this.sendOne(account, steps[i], gas[i], request, i))
            const receipts = await this.await(sent)
            await this.checkStatus(account.address, steps, receipts, gas)
            return { hashes: sent.map((tx) => tx.hash as Hash), receipts, receipt: receipts[receipts.length - 1] }
        } finally {
            for (const tx of sent) this.txs.release(tx)
        }
    }

    private async executeStepwise(account: LocalAccount, steps: TxStep[]): Promise<ExecutedPlan> {
        const request = randomUUID()
        const sent: PlatformTx[] = []
        const receipts: TransactionReceipt[] = []
        try {
            for (const [i, step] of steps.entries()) {
                const [gas] = await this.simulate(account.address, [step]).catch((err) => {
                    throw explainChainError(err)
                })
                const tx = await this.sendOne(account, step, gas, request, i)
                sent.push(tx)
                const [receipt] = await this.await([tx])
                await this.checkStatus(account.address, [step], [receipt], [gas])
                receipts.push(receipt)
            }
        } finally {
            for (const tx of sent) this.txs.release(tx)
        }
        return { hashes: sent.map((tx) => tx.hash as Hash), receipts, receipt: receipts[receipts.length - 1] }
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

    private async sendOne(account: LocalAccount, step: TxStep, gas: bigint, request: string, index: number): Promise<PlatformTx> {
        try {
            return await this.txs.send(account, { to: step.to, data: step.data, value: step.value ?? 0n, gas }, request, index)
        } catch (err) {
            if (err instanceof DatabaseError || /timed out waiting for lock/.test(String((err as Error)?.message))) {
                this.log.error({ err, address: account.address }, 'could not store or serialise a transaction')
                throw unavailable('the database is unavailable; retry later')
            }
            throw explainChainError(err)
        }
    }

    /** The receipts, each noted as landed; a PendingTransactionError (202) when one is not mined in time. */
    private async await(txs: PlatformTx[]): Promise<TransactionReceipt[]> {
        const receipts = await Promise.all(txs.map((tx) => this.receipts.wait(tx.hash as Hash, this.timeoutMs)))
        await Promise.all(txs.map((tx, i) => receipts[i] && this.txs.landed(tx, receipts[i]!)))
        const missing = receipts.findIndex((r) => !r)
        if (missing >= 0) throw new PendingTransactionError(txs[txs.length - 1].hash)
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
