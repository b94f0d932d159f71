import { formatUnits, parseUnits } from '../../bridge/amounts'
import { Logger } from '../../common/logger'
import { Rail } from './rails'
import { SimpleSwapServer, StoredExchange } from './server'

/**
 * How the local provider settles its exchanges for real (docs/bridge/README.md#local-chains-npm-start):
 * each gets a deposit address of the provider's own on the source network; once a deposit arrives it
 * is `confirming`, once confirmed `exchanging`, then the provider pays the amount its rate gives for
 * what arrived to the exchange's address from its treasury on the target network (`sending`, the
 * payout's id in txTo), and `finished` once that payout is confirmed. An exchange nobody paid is
 * `expired` at its validUntil.
 */

export const railKey = (ticker: string, network: string) => `${ticker.toLowerCase()}:${network.toLowerCase()}`

export interface SettlementState {
    /** The next deposit address index (1 and up: 0 is the treasury). */
    nextDeposit: number
    /** Exchanges whose payout was being sent when the provider stopped: never paid twice, left for a look by hand. */
    paying: string[]
}

export class Settlement {
    private running?: Promise<void>

    constructor(
        private readonly server: SimpleSwapServer,
        private readonly rails: Record<string, Rail>,
        readonly state: SettlementState,
        private readonly log: Logger
    ) {
        server.depositAddressFor = (ticker, network) => {
            const rail = this.rails[railKey(ticker, network)]
            if (!rail) throw new Error(`no local network for ${ticker} on ${network}`)
            return rail.depositAddress(this.state.nextDeposit++)
        }
    }

    /** Resolves once no pass is running. */
    async idle(): Promise<void> {
        await this.running
    }

    /** One pass over the open exchanges; a pass still running is not started again. */
    tick(): Promise<void> {
        this.running ??= this.pass().finally(() => (this.running = undefined))
        return this.running
    }

    private async pass(): Promise<void> {
        for (const ex of this.server.exchanges.values()) {
            if (!['waiting', 'confirming', 'exchanging', 'sending'].includes(ex.status)) continue
            try {
                await this.step(ex)
            } catch (err) {
                this.log.warn({ err, exchange: ex.id, status: ex.status }, 'provider exchange could not move on; trying again')
            }
        }
    }

    private async step(ex: StoredExchange): Promise<void> {
        const from = this.rails[railKey(ex.tickerFrom, ex.networkFrom)]
        const to = this.rails[railKey(ex.tickerTo, ex.networkTo)]
        if (!from || !to) return
        if (ex.status === 'waiting' || ex.status === 'confirming') {
            const received = await from.received(ex.addressFrom)
            if (!received) {
                if (Date.parse(ex.validUntil) < Date.now()) this.server.setStatus(ex.id, 'expired')
                return
            }
            if (ex.status === 'waiting') {
                this.server.deposited(ex.id, received.txid, formatUnits(received.amount, from.decimals))
                this.server.setStatus(ex.id, 'confirming')
            }
            if (received.confirmed) this.server.setStatus(ex.id, 'exchanging')
            return
        }
        if (ex.status === 'exchanging') {
            if (this.state.paying.includes(ex.id)) return
            const amountTo = this.server.payoutFor(ex, ex.amountFrom)
            this.state.paying.push(ex.id)
            this.server.onChange?.()
            const txTo = await to.pay(ex.addressTo, parseUnits(amountTo, to.decimals))
            this.server.paidOut(ex.id, txTo, amountTo)
            this.state.paying = this.state.paying.filter((id) => id !== ex.id)
            this.server.setStatus(ex.id, 'sending')
            this.log.info({ exchange: ex.id, amountTo, txTo }, 'provider paid an exchange out')
            return
        }
        if (ex.status === 'sending' && ex.txTo && (await to.confirmed(ex.txTo))) this.server.setStatus(ex.id, 'finished')
    }
}
