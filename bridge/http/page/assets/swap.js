// Follows one swap: GET /api/swap/{id}, its events and /api/swap/config on load, then pushes over /ws.
// docs/bridge/README.md#swap-page. Every value reaches the DOM through textContent or an attribute, never as markup.
'use strict'

;(function () {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
    const MAX_RETRY_MS = 30000
    const FINAL = ['completed', 'failed', 'expired']
    /** Late deposits still on their way back. */
    const LATE_OPEN = ['detected', 'confirmed', 'gathered']
    /** Rough seconds of the bridge's own steps between a final deposit and a payout on its way (gather, lock, trade). */
    const STEPS_SECONDS = 60
    /** Rough seconds an exchange partner takes (SimpleSwap quotes 10 to 30 minutes). */
    const PROVIDER_SECONDS = 20 * 60
    const { displayAmount } = globalThis.SwapAmounts
    const { statusWords, eventWords, lateWords, transferWords, togetherWords } = globalThis.SwapWords
    const $ = (id) => document.getElementById(id)

    const id = swapIdOfPath()
    const state = { swap: null, events: [], config: null, socket: 'connecting' }
    let refreshing = null
    let refreshAgain = false
    let retryMs = 1000

    function swapIdOfPath() {
        const segment = location.pathname.split('/').filter(Boolean)[1] || ''
        try {
            return decodeURIComponent(segment).toLowerCase()
        } catch {
            return ''
        }
    }

    function notFound() {
        document.title = 'Swap not found'
        $('message').textContent = 'Swap not found: no swap has this id.'
        $('swap').hidden = true
    }

    /** The JSON of an API route; null when it answers 400 or 404 (no such swap). */
    async function getJson(url) {
        const res = await fetch(url, { cache: 'no-store', headers: { accept: 'application/json' } })
        if (res.status === 400 || res.status === 404) return null
        if (!res.ok) throw new Error(`${url} answered ${res.status}`)
        return res.json()
    }

    /** Reads the swap and its events again; calls made while a read is under way make one more read after it. */
    function refresh() {
        if (refreshing) {
            refreshAgain = true
            return refreshing
        }
        refreshing = (async () => {
            do {
                refreshAgain = false
                const [swap, events] = await Promise.all([getJson(`/api/swap/${id}`), getJson(`/api/swap/${id}/events`)])
                if (!swap) return false
                state.swap = swap
                for (const e of events ? events.events : []) addEvent(e)
                render()
            } while (refreshAgain)
            return true
        })().finally(() => {
            refreshing = null
        })
        return refreshing
    }

    /** Events are kept by id, so a push and a read of the same event show it once, in order. */
    function addEvent(event) {
        if (state.events.some((e) => e.id === event.id)) return
        state.events.push(event)
        state.events.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
    }

    /** The newest event's status: a push may be newer than the last read of the swap. */
    function currentStatus() {
        const last = state.events[state.events.length - 1]
        return last ? last.status : state.swap.status
    }

    /** Nothing more will happen to the swap's money: a final status, no refund under way, no late deposit on its way back. */
    function settled(status) {
        const s = state.swap
        return FINAL.includes(status) && s.refund_status !== 'pending' && !s.hold &&
            !(s.late_deposits || []).some((l) => LATE_OPEN.includes(l.status))
    }

    const time = (iso) => new Date(iso).toLocaleString()
    const text = (id, value) => {
        $(id).textContent = value === null || value === undefined || value === '' ? '—' : String(value)
    }
    /** A whole-token amount, cut to a readable length; the exact value in its title. */
    const amount = (id, value) => {
        text(id, displayAmount(value))
        if (value) $(id).title = value
        else $(id).removeAttribute('title')
    }
    const network = (chain) => (state.config ? state.config.networks.find((n) => n.chain === chain) : null) || null

    /** The explorer page of a transaction or an address on a chain, when that network has an explorer setting. */
    function explorerUrl(chain, kind, value) {
        const explorer = network(chain) && network(chain).explorer
        if (!explorer || !value) return null
        return kind === 'tx' ? explorer.tx.replace('{hash}', encodeURIComponent(value)) : explorer.address.replace('{address}', encodeURIComponent(value))
    }

    function link(element, chain, kind, value) {
        const href = explorerUrl(chain, kind, value)
        element.hidden = !href
        if (href) element.setAttribute('href', href)
        else element.removeAttribute('href')
    }

    function copyButton(button, value) {
        button.hidden = !value
        button.dataset.value = value || ''
    }

    /** Copies the button's value; "Copied" (or why not) shows on the button for two seconds. */
    async function copy(button) {
        let result
        try {
            await navigator.clipboard.writeText(button.dataset.value)
            result = 'Copied'
        } catch {
            result = 'Copy failed: select the text instead'
        }
        button.textContent = result
        button.classList.toggle('copied', result === 'Copied')
        clearTimeout(button.resetTimer)
        button.resetTimer = setTimeout(() => {
            button.textContent = 'Copy'
            button.classList.remove('copied')
        }, 2000)
    }

    function render() {
        const s = state.swap
        const status = currentStatus()
        document.title = `Swap: ${statusWords(status)}`
        $('message').textContent = ''
        $('swap').hidden = false
        text('status', statusWords(status))
        $('status').dataset.status = status
        amount('amount', s.source_token_amount)
        copyButton($('copy-amount'), s.source_token_amount)
        text('asset', s.source_token)
        text('network', s.source_chain)
        text('deposit-address', s.deposit_address)
        copyButton($('copy-deposit-address'), s.deposit_address)
        link($('deposit-address-link'), s.source_chain, 'address', s.deposit_address)
        // Once a deposit arrived or the swap ended, the address is no longer something to pay.
        const waiting = status === 'pending_deposit'
        $('deposit-title').textContent = waiting ? 'Send' : 'Deposit'
        $('deposit-hint').textContent = waiting ? 'to this address, used for this swap only:' : 'to the address:'
        $('qr').hidden = !waiting
        const qr = `/swap/${encodeURIComponent(s.id)}/qr.svg`
        if (waiting && $('qr').getAttribute('src') !== qr) $('qr').setAttribute('src', qr)
        renderReceive(status)
        // An expired swap was never priced: there is no rate or fee to show.
        $('terms').hidden = status === 'expired'
        renderTerms()
        for (const [name, chain] of [['deposit', s.source_chain], ['payout', s.target_chain], ['refund', s.source_chain]]) {
            const hash = s[`${name}_tx_hash`]
            text(`${name}-tx`, hash)
            copyButton($(`copy-${name}-tx`), hash)
            link($(`${name}-tx-link`), chain, 'tx', hash)
        }
        renderExpiry()
        renderRefund(status)
        renderLate()
        renderTimeline()
        renderConnection()
        renderEta()
    }

    /** What the user gets: the quote until the rate is locked, then the locked amount; nothing once the swap ended unpaid. */
    function renderReceive(status) {
        const s = state.swap
        const unpaid = status === 'expired' || (status === 'failed' && !s.payout_tx_hash)
        $('receive').hidden = unpaid
        if (unpaid) return
        text('receive-prefix', status === 'completed' ? 'Sent' : s.target_token_amount ? 'Exactly' : 'About')
        const value = s.target_token_amount || s.estimated_target_amount
        amount('receive-amount', value)
        copyButton($('copy-receive-amount'), value)
        text('receive-asset', s.target_token)
        text('receive-network', s.target_chain)
        text('target-wallet', s.target_wallet)
        link($('target-wallet-link'), s.target_chain, 'address', s.target_wallet)
    }

    /** The rate, the minimum and each fee, as the swap answer's fields give them. */
    function renderTerms() {
        const s = state.swap
        $('rate').textContent = s.rate
            ? `1 ${s.source_token} = ${displayAmount(s.rate)} ${s.target_token}, after the bridge fee (locked ${time(s.rate_locked_at)})`
            : 'Locked once your deposit is confirmed.'
        $('min-received').textContent = s.min_target_amount
            ? `${displayAmount(s.min_target_amount)} ${s.target_token}: at a worse rate the swap does not go ahead and your deposit is refunded.`
            : '—'
        const fees = s.fees
        const bridge = fees ? fees.bridge : { percent: s.fee_percent, amount: s.fee_amount, token: s.source_token }
        $('fee-bridge').textContent = `${bridge.percent}% of the deposit` +
            (bridge.amount ? `: ${displayAmount(bridge.amount)} ${bridge.token}` : ', taken when the rate is locked')
        const pools = fees ? fees.pools : []
        $('fee-pools').textContent = pools.map((p) => `${p.percent}% on ${p.chain}` +
            (p.amount ? ` (${displayAmount(p.amount)} ${p.token})` : '')).join('; ') + ', included in the rate'
        $('fee-pools').hidden = $('fee-pools-title').hidden = pools.length === 0
        const provider = fees ? fees.provider : null
        $('fee-provider').textContent = provider ? `${provider.name}'s fee, included in the rate` : ''
        $('fee-provider').hidden = $('fee-provider-title').hidden = !provider
    }

    function renderExpiry() {
        if (!state.swap) return
        const at = new Date(state.swap.expires_at)
        const left = Math.floor((at.getTime() - Date.now()) / 1000)
        const waiting = currentStatus() === 'pending_deposit'
        if (left <= 0) {
            $('expiry').textContent = `Deposit window closed: ${at.toLocaleString()}.`
        } else if (waiting) {
            const m = Math.floor(left / 60)
            $('expiry').textContent = `Expires in ${m} min ${String(left % 60).padStart(2, '0')} s (${at.toLocaleString()}).`
        } else {
            $('expiry').textContent = `Deposit window: until ${at.toLocaleString()}.`
        }
    }

    /** What happened to money that arrived, when the swap did not pay: the reason, the refund, a hold, late deposits. */
    function renderRefund(status) {
        const s = state.swap
        const refund = s.refund_status
        const late = s.late_deposits || []
        // Transfers, not late deposits: several found together are one late deposit.
        const arrived = late.reduce((n, l) => n + Math.max((l.transfers || []).length, 1), 0)
        const lines = []
        if (status === 'expired' && !s.deposit_tx_hash && !s.deposit_amount) {
            lines.push(late.length === 0
                ? 'The swap expired before a deposit arrived: nothing was received, nothing is owed.'
                : `The deposit window closed, then ${arrived === 1 ? 'a deposit' : `${arrived} deposits`} arrived: ` +
                    'not swapped, returned as shown under "Deposits that were not swapped".')
        }
        if (s.error_message) lines.push(`Reason: ${s.error_message}`)
        const refunded = displayAmount(s.refund_amount || s.deposit_amount || '')
        if (refund === 'pending') {
            lines.push(`Refunding ${refunded} ${s.source_token} to ${s.refund_address}.`)
            if (s.refund_next_attempt_at) lines.push(`Next attempt: ${time(s.refund_next_attempt_at)}.`)
        }
        if (refund === 'sent') lines.push(`Refunded ${displayAmount(s.refund_amount)} ${s.source_token} to ${s.refund_address}.`)
        if (refund === 'failed') lines.push(`The refund could not be sent${s.refund_error ? `: ${s.refund_error}` : ''}. An operator has to act.`)
        if (refund === 'not_requested') lines.push('No refund address was given, so nothing was sent back. Contact the operator.')
        if (s.hold) lines.push(`Held for an operator since ${time(s.hold.since)}: ${s.hold.reason}`)
        $('refund').hidden = lines.length === 0
        $('refund-state').replaceChildren(...lines.map((line) => {
            const p = document.createElement('p')
            p.textContent = line
            return p
        }))
        $('refund').classList.toggle('ended', status === 'failed' || status === 'expired')
    }

    /**
     * Each deposit other than the credited one, with its hash, what became of it and the refund's hash.
     * Several transfers found together are one late deposit, gathered and refunded in one transfer:
     * each is listed with its amount, its hash and that fate.
     */
    function renderLate() {
        const s = state.swap
        const late = s.late_deposits || []
        $('late').hidden = late.length === 0
        $('late-deposits').replaceChildren(...late.map((l) => {
            const li = document.createElement('li')
            li.dataset.state = l.status
            const transfers = l.transfers || []
            const unattributed = l.unattributed_amount && !/^0(\.0*)?$/.test(l.unattributed_amount) ? l.unattributed_amount : null
            const several = transfers.length > 1 || (transfers.length === 1 && unattributed)
            const what = document.createElement('p')
            what.className = 'late-summary'
            what.textContent = `${displayAmount(l.amount)} ${s.source_token}` +
                (transfers.length > 1 ? ` in ${transfers.length} deposits` : '') + `, seen ${time(l.detected_at)}: ${lateWords(l.status)}` +
                (l.status === 'refunded' && l.refund_amount ? ` (${displayAmount(l.refund_amount)} ${s.source_token} to ${l.refund_address})` : '') +
                (several ? ', ' + togetherWords(l.status) : '') +
                (l.error ? `. ${l.error}` : '') + '.'
            if (!several) {
                li.append(what, hashLine('Deposit', 'late-tx', l.tx_hash || (transfers[0] && transfers[0].tx_hash)), hashLine('Refund', 'late-refund-tx', l.refund_tx_hash))
                return li
            }
            const list = document.createElement('ul')
            list.className = 'late-transfers'
            list.append(...transfers.map((t) => {
                const item = document.createElement('li')
                item.className = 'late-transfer'
                const line = document.createElement('p')
                line.className = 'late-transfer-summary'
                line.textContent = `${displayAmount(t.amount)} ${s.source_token} (block ${t.block_number}): ${transferFate(l)}`
                item.append(line, hashLine('Deposit', 'late-tx', t.tx_hash))
                return item
            }))
            li.append(what, list)
            if (unattributed) {
                const rest = document.createElement('p')
                rest.className = 'late-unattributed'
                rest.textContent = `${displayAmount(unattributed)} ${s.source_token} more, whose transaction was not found: ${transferFate(l)}`
                li.append(rest)
            }
            li.append(hashLine('Refund', 'late-refund-tx', l.refund_tx_hash))
            return li
        }))
    }

    /** One transfer's fate: its late deposit's, with the refund that carried it. */
    function transferFate(l) {
        return l.status === 'refunded' && l.refund_tx_hash ? `refunded in ${l.refund_tx_hash}` : transferWords(l.status)
    }

    /** "Deposit: <hash> Copy Explorer" for a source-chain transaction, or "—" without one. */
    function hashLine(title, className, hash) {
        const p = document.createElement('p')
        const code = document.createElement('code')
        code.className = className
        code.textContent = hash || '—'
        p.append(`${title}: `, code)
        if (hash) {
            const button = document.createElement('button')
            button.type = 'button'
            button.className = 'copy'
            button.textContent = 'Copy'
            copyButton(button, hash)
            const a = document.createElement('a')
            a.className = 'explorer'
            a.target = '_blank'
            a.rel = 'noopener noreferrer'
            a.textContent = 'Explorer'
            link(a, state.swap.source_chain, 'tx', hash)
            p.append(' ', button, ' ', a)
        }
        return p
    }

    function renderTimeline() {
        const list = $('timeline')
        const items = state.events.map((e, i) => {
            const li = document.createElement('li')
            li.dataset.status = e.status
            li.dataset.event = e.event
            const name = document.createElement('span')
            name.className = 'step'
            name.textContent = eventWords(e.event) || statusWords(e.status)
            const when = document.createElement('time')
            when.dateTime = e.timestamp
            when.textContent = time(e.timestamp)
            li.append(name, when)
            if (i === state.events.length - 1) li.setAttribute('aria-current', 'step')
            return li
        })
        list.replaceChildren(...items)
    }

    /** Whether the page still follows the swap: live, finished, or cut off and reconnecting. */
    function renderConnection() {
        const line = $('connection')
        if (state.swap && settled(currentStatus())) {
            line.textContent = 'Finished: this swap has ended.'
            line.dataset.state = 'finished'
        } else if (state.socket === 'live') {
            line.textContent = 'Live: each step appears as it happens.'
            line.dataset.state = 'live'
        } else if (state.socket === 'down') {
            line.textContent = `Reconnecting… (next try in ${Math.round(retryMs / 1000)} s)`
            line.dataset.state = 'reconnecting'
        } else {
            line.textContent = 'Connecting…'
            line.dataset.state = 'connecting'
        }
    }

    /**
     * About how long until the payout: the rough seconds to finality of the source and target networks
     * (GET /api/swap/config, finality_seconds), one monitor cycle to see the deposit, a minute for the
     * bridge's own steps and, on a route through an exchange partner, its usual time; only the parts still ahead.
     */
    function renderEta() {
        const s = state.swap
        const status = currentStatus()
        const source = network(s.source_chain)
        const target = network(s.target_chain)
        const eta = $('eta')
        if (FINAL.includes(status) || !source || !target || source.finality_seconds === null || target.finality_seconds === null) {
            eta.hidden = true
            return
        }
        const order = ['pending_deposit', 'deposit_detected', 'deposit_confirmed']
        const step = order.indexOf(status)
        const provider = ((s.fees && s.fees.provider) || status.startsWith('simpleswap_')) && !['vault_locking', 'vault_locked', 'payout_processing'].includes(status)
        let seconds = target.finality_seconds
        if (status !== 'payout_processing') seconds += STEPS_SECONDS + (provider ? PROVIDER_SECONDS : 0)
        if (step !== -1 && step < 2) seconds += source.finality_seconds
        if (step === 0) seconds += state.config.monitor_interval_seconds
        const minutes = Math.max(1, Math.ceil(seconds / 60))
        eta.hidden = false
        eta.dataset.seconds = String(seconds)
        eta.textContent = `${step === 0 ? 'After your deposit, the swap takes' : 'Time left'}: about ${minutes} minute${minutes === 1 ? '' : 's'}.`
    }

    /** The WebSocket: subscribed to this swap, pinged within the idle timeout, reopened with backoff when closed. */
    function connect(ws) {
        const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${ws.path}`)
        let ping
        socket.onopen = () => {
            socket.send(JSON.stringify({ type: 'subscribe', swap_id: id }))
            ping = setInterval(() => socket.send(JSON.stringify({ type: 'ping' })), (ws.idle_timeout_seconds * 1000) / 2)
        }
        socket.onmessage = (message) => {
            let m
            try {
                m = JSON.parse(message.data)
            } catch {
                return
            }
            if (m.type === 'subscribed' && m.swap_id === id) {
                retryMs = 1000
                state.socket = 'live'
                renderConnection()
                // Whatever happened before this subscription (since the first read, or while disconnected).
                refresh().catch(() => undefined)
            } else if (m.type === 'swap_update' && m.swap_id === id) {
                addEvent({ id: m.event_id, event: m.event, status: m.status, tx_hash: m.tx_hash || null, timestamp: m.timestamp })
                render()
                refresh().catch(() => undefined)
            }
        }
        socket.onclose = () => {
            clearInterval(ping)
            state.socket = 'down'
            renderConnection()
            setTimeout(() => connect(ws), retryMs)
            retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)
        }
    }

    async function start() {
        if (!UUID.test(id)) return notFound()
        document.addEventListener('click', (event) => {
            const button = event.target.closest('button.copy')
            if (button && button.dataset.value) copy(button)
        })
        // The explorers and finality figures; the page works without them (no links, no estimate).
        const config = getJson('/api/swap/config').catch(() => null)
        let found
        for (;;) {
            try {
                found = await refresh()
                break
            } catch {
                $('message').textContent = `Could not reach the bridge; trying again in ${Math.round(retryMs / 1000)} s…`
                await new Promise((resolve) => setTimeout(resolve, retryMs))
                retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)
            }
        }
        if (!found) return notFound()
        retryMs = 1000
        state.config = await config
        render()
        setInterval(renderExpiry, 1000)
        connect(state.config && state.config.websocket ? state.config.websocket : { path: '/ws', idle_timeout_seconds: 60 })
    }

    start()
})()
