import { DepositCheck } from '../chains/adapter'
import { Swap } from '../store/swaps'
import { EngineContext } from './context'

/**
 * The swap's deposit against the source chain's finality rule: still in the chain, where, and how
 * deep. Asked when the deposit is confirmed (steps.ts) and once more before the first payout
 * (payout.ts). 'orphaned' is passed on only when a second look agrees; until then it reads as 'pending'.
 */
export async function checkSourceDeposit(ctx: EngineContext, swap: Swap): Promise<DepositCheck> {
    const check = await ctx.adapter(swap.sourceChain).checkDeposit(
        { txHash: swap.depositTxHash, blockNumber: swap.depositBlock!, blockHash: swap.depositBlockHash!, amount: swap.depositAmount! },
        ctx.config.networks[swap.sourceChain]!.finality
    )
    const key = `deposit-gone:${swap.id}:${swap.depositBlockHash}`
    if (check.state !== 'orphaned') {
        await ctx.secondLook.forget(key)
        return check
    }
    return (await ctx.secondLook.agrees(key)) ? check : { state: 'pending', confirmations: 0 }
}
