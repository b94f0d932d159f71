// The swap page's words for the bridge's statuses and events (docs/bridge/lifecycle.md), so that a user
// reads what happens to their money rather than the engine's step names. docs/bridge/README.md#swap-page
'use strict'

;(function () {
    const STATUS = {
        pending_deposit: 'Waiting for your deposit',
        deposit_detected: 'Deposit received, waiting for network confirmations',
        deposit_confirmed: 'Deposit confirmed',
        rate_locked: 'Exchange rate locked',
        gathering: 'Moving your deposit to the bridge vault',
        gathered: 'Deposit in the bridge vault',
        vault_locking: 'Reserving your payout',
        vault_locked: 'Payout reserved',
        payout_processing: 'Sending your payout',
        completed: 'Completed: payout sent',
        failed: 'Failed',
        expired: 'Expired: the deposit window closed',
        simpleswap_waiting: 'Exchange partner waiting for our transfer',
        simpleswap_confirming: 'Exchange partner confirming our transfer',
        simpleswap_exchanging: 'Exchange partner converting',
        simpleswap_sending: 'Exchange partner sending the converted funds',
        simpleswap_finished: 'Exchange partner finished',
        simpleswap_failed: 'Exchange partner failed the exchange',
        simpleswap_refunded: 'Exchange partner refunded the exchange',
        simpleswap_verifying: 'Exchange partner verifying the exchange (an operator follows it up)',
        simpleswap_expired: 'Exchange partner let the exchange expire',
    }

    /** Events that do not change the status; a status's own event is named by the status. */
    const EVENT = {
        refund_sent: 'Refund sent',
        refund_failed: 'The refund could not be sent: an operator has to act',
        deposit_reorged: 'The deposit was undone by a network reorganisation: waiting for it again',
        provider_leg_held: 'Held at the exchange partner for an operator',
        swap_held: 'Held for an operator',
        late_deposit_detected: 'A deposit arrived outside the swap: it will be returned',
        late_deposit_refunded: 'That deposit was refunded',
        late_deposit_held: 'That deposit is held for an operator (no refund address)',
    }

    /** A deposit other than the credited one (late_deposits of the swap), by its state. */
    const LATE = {
        detected: 'waiting for it to be final, then it is refunded',
        confirmed: 'final; being moved to the vault to be refunded',
        gathered: 'being refunded',
        refunded: 'refunded',
        held: 'held for an operator: the swap has no refund address',
        dropped: 'closed by an operator',
    }

    /** One of several transfers making up a late deposit, by that deposit's state (refunded names its refund's hash instead). */
    const TRANSFER = {
        detected: 'waiting to be final',
        confirmed: 'final; being moved to the vault',
        gathered: 'being refunded',
        refunded: 'refunded',
        held: 'held for an operator',
        dropped: 'closed by an operator',
    }

    /** A late deposit of several transfers: they share one gather and one refund (one network fee). */
    const TOGETHER = {
        refunded: 'all returned together in one transfer',
        held: 'held together',
    }

    const fallback = (name) => name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ')
    const statusWords = (status) => STATUS[status] || fallback(status)
    const eventWords = (event) => EVENT[event] || null
    const lateWords = (state) => LATE[state] || fallback(state)
    const transferWords = (state) => TRANSFER[state] || fallback(state)
    const togetherWords = (state) => TOGETHER[state] || 'to be returned together in one transfer'

    globalThis.SwapWords = { statusWords, eventWords, lateWords, transferWords, togetherWords }
})()
