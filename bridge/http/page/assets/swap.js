// Follows one swap: GET /api/swap/{id} and its events on load, then pushes over /ws. docs/bridge/README.md#swap-page
// Every value reaches the DOM through textContent or an attribute, never as markup.
'use strict'

;(function () {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
    const MAX_RETRY_MS = 30000
    const $ = (id) => document.getElementById(id)

    const id = swapIdOfPath()
    const state = { swap: null, events: [] }
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

    const label = (status) => status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, ' ')
    const time = (iso) => new Date(iso).toLocaleString()
    const text = (id, value) => {
        $(id).textContent = value === null || value === undefined || value === '' ? '—' : String(value)
    }

    function render() {
        const s = state.swap
        const status = currentStatus()
        document.title = `Swap: ${label(status)}`
        $('message').textContent = ''
        $('swap').hidden = false
        text('status', label(status))
        $('status').dataset.status = status
        text('amount', s.source_token_amount)
        text('asset', s.source_token)
        text('network', s.source_chain)
        text('deposit-address', s.deposit_address)
        // Once a deposit arrived or the swap ended, the address is no longer something to pay.
        const waiting = status === 'pending_deposit'
        $('deposit-title').textContent = waiting ? 'Send' : 'Deposit'
        $('deposit-hint').textContent = waiting ? 'to this address, used for this swap only:' : 'to the address:'
        $('qr').hidden = !waiting
        const qr = `/swap/${encodeURIComponent(s.id)}/qr.svg`
        if (waiting && $('qr').getAttribute('src') !== qr) $('qr').setAttribute('src', qr)
        // The quote until the rate is locked, then the amount paid.
        text('receive-prefix', s.target_token_amount ? 'Exactly' : 'About')
        text('receive-amount', s.target_token_amount || s.estimated_target_amount)
        text('receive-asset', s.target_token)
        text('receive-network', s.target_chain)
        text('target-wallet', s.target_wallet)
        text('deposit-tx', s.deposit_tx_hash)
        text('payout-tx', s.payout_tx_hash)
        text('refund-tx', s.refund_tx_hash)
        renderExpiry()
        renderRefund(status)
        renderTimeline()
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

    function renderRefund(status) {
        const s = state.swap
        const refund = s.refund_status
        const lines = []
        if (status === 'expired' && !s.deposit_tx_hash && !s.deposit_amount) lines.push('The swap expired before a deposit arrived.')
        if (s.error_message) lines.push(`Reason: ${s.error_message}`)
        if (refund === 'pending') {
            lines.push(`Refunding ${s.refund_amount || s.deposit_amount || ''} ${s.source_token} to ${s.refund_address}.`)
            if (s.refund_next_attempt_at) lines.push(`Next attempt: ${time(s.refund_next_attempt_at)}.`)
        }
        if (refund === 'sent') lines.push(`Refunded ${s.refund_amount} ${s.source_token} to ${s.refund_address}.`)
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

    function renderTimeline() {
        const list = $('timeline')
        const items = state.events.map((e, i) => {
            const li = document.createElement('li')
            li.dataset.status = e.status
            li.dataset.event = e.event
            const name = document.createElement('span')
            name.textContent = label(e.status)
            const event = document.createElement('span')
            event.className = 'event'
            event.textContent = e.event
            const when = document.createElement('time')
            when.dateTime = e.timestamp
            when.textContent = time(e.timestamp)
            li.append(name, event, when)
            if (i === state.events.length - 1) li.setAttribute('aria-current', 'step')
            return li
        })
        list.replaceChildren(...items)
    }

    function connection(message) {
        $('connection').textContent = message
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
                connection('Live: each step appears as it happens.')
                // Whatever happened before this subscription (since the first read, or while disconnected).
                refresh().catch(() => connection('Live, but the last read of the swap failed; it is read again on the next update.'))
            } else if (m.type === 'swap_update' && m.swap_id === id) {
                addEvent({ id: m.event_id, event: m.event, status: m.status, tx_hash: m.tx_hash || null, timestamp: m.timestamp })
                render()
                refresh().catch(() => undefined)
            }
        }
        socket.onclose = () => {
            clearInterval(ping)
            connection(`Connection lost; reconnecting in ${Math.round(retryMs / 1000)} s…`)
            setTimeout(() => connect(ws), retryMs)
            retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)
        }
    }

    async function start() {
        if (!UUID.test(id)) return notFound()
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
        setInterval(renderExpiry, 1000)
        const config = await getJson('/api/swap/config').catch(() => null)
        connect(config && config.websocket ? config.websocket : { path: '/ws', idle_timeout_seconds: 60 })
    }

    start()
})()
