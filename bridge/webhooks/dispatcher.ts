import { randomUUID } from 'crypto'
import { Pool } from 'pg'
import { CoalescedRunner } from '../../common/coalesced-runner'
import { Logger } from '../../common/logger'
import { BRIDGE_EVENT_CHANNEL, BRIDGE_WEBHOOK_CHANNEL } from '../../db/channels'
import { ChannelListener } from '../../db/listener'
import { inTransaction } from '../../db/transaction'
import { WebhookConfig } from '../config'
import { eventsById } from '../store/events'
import { webhookAttempted } from '../metrics'
import { matches, TEST_PING } from './catalogue'
import { swapEventBody, testPingBody } from './payload'
import { afterFailure, disableReason, DisableRule, LEASE_MS, shouldDisable } from './policy'
import { deliveryHeaders } from './signing'
import { Subscription, SubscriptionStore } from './store'
import { AttemptOutcome, Transport } from './transport'

/** The webhook dispatcher, a durable queue in Postgres shared by every replica (fan-out, leased claim, attempt): docs/bridge/webhooks.md#delivery */

const FAN_OUT_BATCH = 500
/**
 * Deliveries inserted by this process after which it refreshes the queue table's statistics
 * itself. A burst fills the table faster than autovacuum's next look (up to a minute), and with
 * statistics of a near-empty table the planner sorts every pending row on each claim instead of
 * reading the due index in order (measured: 25 ms instead of 0.1 ms a claim at 20,000 pending).
 */
const ANALYZE_AFTER = 5_000
/** Successes waiting to be written after which attempts wait for the writer (backpressure). */
const MAX_UNWRITTEN = 1_000
const POLL_MS = 1_000
const MIN_WAKE_MS = 5

interface Claimed {
    id: string
    leaseToken: string
    attempts: number
    subscriptionId: string
    eventId: string
    event: string
    body: string
    url: string
    method: string
    /** Secrets that sign now, newest first (loaded once per claimed batch). */
    secrets: string[] | undefined
}

interface Success {
    claimed: Claimed
    outcome: AttemptOutcome
}

export interface TestResult {
    delivered: boolean
    status: number
    error: string | null
    event_id: string
    delivery_id: string
}

export class Dispatcher {
    private inFlight = 0
    /** One cycle at a time, and one more if woken meanwhile; the first of a burst waits a turn, so attempts finishing together are claimed for at once. */
    private readonly cycles = new CoalescedRunner(() => this.cycle(), { deferred: true })
    /** Set by the lifecycle NOTIFY and the poll: only then is the event table looked at. */
    private fanOutDue = true
    /** Whether the last claim of this burst of cycles took fewer than it asked for, so the next due time matters. */
    private drained = true
    private insertedSinceAnalyze = 0
    private stopped = true
    private wakeTimer?: NodeJS.Timeout
    private listeners: ChannelListener<unknown>[] = []
    private successes: Success[] = []
    /** Writes successes in the background, one writer at a time; a success queued while it writes is taken by it or the next run. */
    private readonly writer = new CoalescedRunner(() => this.writeQueued())
    private idle?: () => void
    private readonly rule: DisableRule
    private readonly claimBatch: number

    constructor(
        private readonly pool: Pool,
        private readonly databaseUrl: string,
        private readonly store: SubscriptionStore,
        private readonly transport: Transport,
        private readonly config: WebhookConfig,
        private readonly log: Logger
    ) {
        this.rule = { afterMs: config.disableAfterMs * config.timeScale, afterEvents: config.disableAfterEvents }
        this.claimBatch = Math.max(1, Math.floor(config.concurrency / 4))
    }

    async start(): Promise<void> {
        this.stopped = false
        for (const channel of [BRIDGE_EVENT_CHANNEL, BRIDGE_WEBHOOK_CHANNEL]) {
            const listener = new ChannelListener<unknown>({
                databaseUrl: this.databaseUrl, channel, log: this.log,
                onMessage: () => {
                    if (channel === BRIDGE_EVENT_CHANNEL) this.fanOutDue = true
                    this.kick()
                },
            })
            this.listeners.push(listener)
            await listener.start()
        }
        this.kick()
    }

    /** Stops claiming, lets attempts in flight finish (each is bounded by the timeout) and writes their results. */
    async stop(): Promise<void> {
        this.stopped = true
        // A claim already under way still launches what it took; no cycle starts after it.
        const lastCycle = this.cycles.stop()
        clearTimeout(this.wakeTimer)
        await Promise.allSettled(this.listeners.map((l) => l.close()))
        await lastCycle
        if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve))
        await this.flush()
    }

    /** Wakes every replica's dispatcher (and this one at once): deliveries became due outside the lifecycle. */
    async notify(): Promise<void> {
        await this.pool.query('SELECT pg_notify($1, $2)', [BRIDGE_WEBHOOK_CHANNEL, '{}'])
        this.kick()
    }

    kick(): void {
        if (!this.stopped) this.cycles.run()
    }

    /** Fans out what is due, claims for the free slots, and (the last cycle of a burst) sets the next wake-up. */
    private async cycle(): Promise<void> {
        try {
            if (this.fanOutDue) {
                this.fanOutDue = false
                while ((await this.fanOut()) === FAN_OUT_BATCH && !this.stopped);
                if (this.insertedSinceAnalyze >= ANALYZE_AFTER) {
                    this.insertedSinceAnalyze = 0
                    await this.pool.query('ANALYZE bridge_webhook_delivery').catch((err) => this.log.warn({ err }, 'could not analyze the webhook queue'))
                }
            }
            const free = this.config.concurrency - this.inFlight
            // Under load, claim in batches (a quarter of the slots at least) rather than one row per finished attempt.
            if (free > 0 && (free >= this.claimBatch || this.inFlight === 0) && !this.stopped) {
                const claimed = await this.claim(free)
                for (const c of claimed) this.launch(c)
                this.drained = claimed.length < free
            }
            // Woken meanwhile: the next cycle claims again, and the burst's last sets the wake-up.
            if (this.cycles.rerunDue) return
            const drained = this.drained
            this.drained = true
            // With a backlog, each finished attempt wakes the loop; the next due time matters only once it is
            // drained. Woken while this computes it, another cycle follows.
            if (drained) await this.scheduleWake()
            else this.wakeIn(POLL_MS)
        } catch (err) {
            this.log.error({ err }, 'webhook dispatch cycle failed; retrying')
            this.fanOutDue = true
            this.drained = true
            // The poll retries; a wake-up during the failed cycle waits for it.
            this.cycles.cancelRerun()
            this.wakeIn(POLL_MS)
        }
    }

    private wakeIn(ms: number): void {
        clearTimeout(this.wakeTimer)
        if (this.stopped) return
        this.wakeTimer = setTimeout(() => {
            // The poll also catches events whose NOTIFY was missed (listener reconnecting).
            if (ms >= POLL_MS) this.fanOutDue = true
            this.kick()
        }, ms)
    }

    /** Sleeps until the next delivery falls due (leases included), or POLL_MS at most. */
    private async scheduleWake(): Promise<void> {
        const { rows } = await this.pool.query(
            `SELECT EXTRACT(EPOCH FROM (d.next_attempt_at - now())) * 1000 AS ms FROM bridge_webhook_delivery d
             WHERE d.state = 'pending' AND d.next_attempt_at > now()
               AND d.subscription_id = ANY (ARRAY(SELECT id FROM bridge_webhook_subscription WHERE active))
             ORDER BY d.next_attempt_at LIMIT 1`
        )
        const ms = rows[0] ? Number(rows[0].ms) : POLL_MS
        this.wakeIn(Math.max(MIN_WAKE_MS, Math.min(POLL_MS, Math.ceil(ms))))
    }

    /** Processes one batch of recorded events; returns how many. */
    async fanOut(): Promise<number> {
        return inTransaction(this.pool, async (client) => {
            const { rows } = await client.query(
                `SELECT w.id, w.event, w.swap_id, w.created_at AS recorded_at, w.swap_event_id::text AS swap_event_id
                 FROM bridge_webhook_event w
                 WHERE w.fanned_out_at IS NULL ORDER BY w.swap_event_id LIMIT $1 FOR UPDATE OF w SKIP LOCKED`,
                [FAN_OUT_BATCH]
            )
            if (rows.length === 0) return 0
            const swapEvents = await eventsById(client, rows.flatMap((r) => (r.swap_event_id === null ? [] : [r.swap_event_id])))
            // Disabled subscriptions get their deliveries too: they wait, unsent, until re-enabled.
            const subscriptions = (await client.query(`SELECT id, event_types, created_at FROM bridge_webhook_subscription`)).rows
            const ids: string[] = []
            const bodies: (string | null)[] = []
            const deliveryEvents: string[] = []
            const deliverySubscriptions: string[] = []
            for (const row of rows) {
                ids.push(row.id)
                // The swap (and with it its history) was deleted before the event went out: nothing to send.
                const swapEvent = row.swap_event_id === null ? undefined : swapEvents.get(row.swap_event_id)
                if (!swapEvent) {
                    bodies.push(null)
                    continue
                }
                bodies.push(swapEventBody(row.id, {
                    event: row.event, swap_id: row.swap_id, status: swapEvent.status, tx_hash: swapEvent.txHash, data: swapEvent.data, created_at: swapEvent.createdAt,
                }))
                for (const s of subscriptions) {
                    // A subscription receives the events recorded after it was created.
                    if (s.created_at <= row.recorded_at && matches(s.event_types, row.event)) {
                        deliveryEvents.push(row.id)
                        deliverySubscriptions.push(s.id)
                    }
                }
            }
            await client.query(
                `UPDATE bridge_webhook_event w SET body = x.body, fanned_out_at = now() FROM unnest($1::uuid[], $2::text[]) AS x(id, body) WHERE w.id = x.id`,
                [ids, bodies]
            )
            if (deliveryEvents.length > 0) {
                await client.query(
                    `INSERT INTO bridge_webhook_delivery (event_id, subscription_id, next_attempt_at)
                     SELECT e, s, now() FROM unnest($1::uuid[], $2::uuid[]) AS x(e, s) ON CONFLICT (event_id, subscription_id) DO NOTHING`,
                    [deliveryEvents, deliverySubscriptions]
                )
                this.insertedSinceAnalyze += deliveryEvents.length
            }
            return rows.length
        })
    }

    /** Leases due deliveries (timeout + 5 s, a fresh token) and commits before any request: results are written only under that token. */
    private async claim(limit: number): Promise<Claimed[]> {
        const { rows } = await this.pool.query(
            `WITH due AS (
                SELECT d.id FROM bridge_webhook_delivery d
                WHERE d.state = 'pending' AND d.next_attempt_at <= now()
                  AND d.subscription_id = ANY (ARRAY(SELECT id FROM bridge_webhook_subscription WHERE active))
                ORDER BY d.next_attempt_at
                LIMIT $1
                FOR UPDATE OF d SKIP LOCKED)
             UPDATE bridge_webhook_delivery d SET next_attempt_at = now() + $2 * interval '1 millisecond', lease_token = gen_random_uuid()
             FROM due, bridge_webhook_event e, bridge_webhook_subscription s
             WHERE d.id = due.id AND e.id = d.event_id AND s.id = d.subscription_id
             RETURNING d.id, d.lease_token, d.attempts, d.subscription_id, d.event_id, e.event, e.body, s.url, s.method`,
            [limit, LEASE_MS]
        )
        if (rows.length === 0) return []
        const secrets = await this.store.signingSecrets([...new Set(rows.map((r) => r.subscription_id as string))])
        return rows.map((r) => ({
            id: r.id, leaseToken: r.lease_token, attempts: r.attempts, subscriptionId: r.subscription_id,
            eventId: r.event_id, event: r.event, body: r.body, url: r.url, method: r.method, secrets: secrets.get(r.subscription_id),
        }))
    }

    private launch(claimed: Claimed): void {
        this.inFlight++
        this.attempt(claimed)
            .catch((err) => this.log.error({ err, delivery: claimed.id }, 'webhook attempt could not be recorded; it is retried when its lease ends'))
            .finally(() => {
                this.inFlight--
                if (this.inFlight === 0 && this.idle) this.idle()
                this.kick()
            })
    }

    private async attempt(claimed: Claimed): Promise<void> {
        const secrets = claimed.secrets
        const body = Buffer.from(claimed.body, 'utf8')
        const outcome: AttemptOutcome = secrets
            ? await this.transport.send({ url: claimed.url, method: claimed.method }, body, (at) => deliveryHeaders({
                event: claimed.event, eventId: claimed.eventId, deliveryId: claimed.id, subscriptionId: claimed.subscriptionId, body, secrets, at,
            }))
            : { ok: false, status: null, error: 'no signing secret', gone: false, startedAt: new Date(), durationMs: 0 }
        if (outcome.ok) {
            webhookAttempted('delivered')
            // Written in the background, many at once: the slot is free for the next attempt meanwhile.
            // Until then the row's lease keeps every replica from sending it again.
            this.successes.push({ claimed, outcome })
            this.writer.run()
            if (this.successes.length >= MAX_UNWRITTEN) await this.writer.idle()
        } else {
            await this.recordFailure(claimed, outcome)
        }
    }

    /** The writer: successes until none are left, each batch in one statement (one round trip for many deliveries). */
    private async writeQueued(): Promise<void> {
        while (this.successes.length > 0) {
            const batch = this.successes.splice(0, MAX_UNWRITTEN).sort((a, b) => (a.claimed.id < b.claimed.id ? -1 : 1))
            await this.writeSuccesses(batch).catch((err) => {
                this.log.error({ err, deliveries: batch.length }, 'webhook results could not be recorded; those deliveries are sent again when their lease ends')
            })
        }
    }

    private async flush(): Promise<void> {
        this.writer.run()
        await this.writer.idle()
    }

    private async writeSuccesses(batch: Success[]): Promise<void> {
        // Subscription rows are locked in id order, so replicas writing at once cannot deadlock.
        await this.pool.query(
            `WITH r AS (
                SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[]) AS r(id, token, status, started_at, duration_ms)),
             d AS (
                UPDATE bridge_webhook_delivery d SET state = 'delivered', attempts = d.attempts + 1, next_attempt_at = NULL, lease_token = NULL,
                    last_status = r.status, last_error = NULL, last_attempt_at = r.started_at, delivered_at = now()
                FROM r WHERE d.id = r.id AND d.lease_token = r.token
                RETURNING d.id, d.attempts, d.subscription_id, r.status, r.started_at, r.duration_ms),
             a AS (
                INSERT INTO bridge_webhook_attempt (delivery_id, attempt, started_at, duration_ms, status)
                SELECT id, attempts, started_at, duration_ms, status FROM d),
             s AS (
                SELECT id FROM bridge_webhook_subscription WHERE id IN (SELECT subscription_id FROM d)
                  AND (failure_count > 0 OR failed_events > 0 OR failing_since IS NOT NULL OR last_success_at IS NULL OR last_success_at < now() - interval '1 second')
                ORDER BY id FOR UPDATE)
             UPDATE bridge_webhook_subscription t SET failure_count = 0, failed_events = 0, failing_since = NULL, last_success_at = now()
             FROM s WHERE t.id = s.id`,
            [
                batch.map((b) => b.claimed.id), batch.map((b) => b.claimed.leaseToken), batch.map((b) => b.outcome.status),
                batch.map((b) => b.outcome.startedAt), batch.map((b) => b.outcome.durationMs),
            ]
        )
    }

    private async recordFailure(claimed: Claimed, outcome: AttemptOutcome): Promise<void> {
        const attempts = claimed.attempts + 1
        const next = afterFailure(attempts, { scale: this.config.timeScale, retryAfterMs: outcome.retryAfterMs })
        const state = next.giveUp ? 'undelivered' : 'pending'
        webhookAttempted(next.giveUp ? 'given_up' : 'failed')
        const delayMs = next.giveUp ? null : Math.round(next.delayMs)
        const { rows } = await this.pool.query(
            `WITH d AS (
                UPDATE bridge_webhook_delivery SET attempts = $3, state = $4,
                    next_attempt_at = CASE WHEN $5::bigint IS NULL THEN NULL ELSE now() + $5::bigint * interval '1 millisecond' END,
                    lease_token = NULL, last_status = $6, last_error = $7, last_attempt_at = $8
                WHERE id = $1 AND lease_token = $2
                RETURNING id, subscription_id, next_attempt_at),
             a AS (
                INSERT INTO bridge_webhook_attempt (delivery_id, attempt, started_at, duration_ms, status, error, next_attempt_at, retry_in_ms)
                SELECT id, $3, $8, $9, $6, $7, next_attempt_at, $5::bigint FROM d)
             UPDATE bridge_webhook_subscription s SET failure_count = s.failure_count + 1, failing_since = COALESCE(s.failing_since, $8),
                last_failure_at = now(), failed_events = s.failed_events + CASE WHEN $4 = 'undelivered' THEN 1 ELSE 0 END,
                active = s.active AND NOT $10::boolean,
                disabled_at = CASE WHEN s.active AND $10::boolean THEN now() ELSE s.disabled_at END,
                disabled_reason = CASE WHEN s.active AND $10::boolean THEN 'the endpoint answered 410 Gone' ELSE s.disabled_reason END
             FROM d WHERE s.id = d.subscription_id
             RETURNING s.active, s.failing_since, s.failed_events, s.url`,
            [claimed.id, claimed.leaseToken, attempts, state, delayMs, outcome.status, outcome.error, outcome.startedAt, outcome.durationMs, outcome.gone]
        )
        const sub = rows[0]
        if (!sub) return
        if (outcome.gone) this.log.warn({ subscription: claimed.subscriptionId }, 'webhook subscription disabled: the endpoint answered 410 Gone')
        const failure = { failingSince: sub.failing_since as Date, failedEvents: sub.failed_events as number }
        if (sub.active && shouldDisable(failure, new Date(), this.rule)) {
            const reason = disableReason(failure, this.rule)
            const { rowCount } = await this.pool.query(
                `UPDATE bridge_webhook_subscription SET active = false, disabled_at = now(), disabled_reason = $2, updated_at = now()
                 WHERE id = $1 AND active AND failing_since IS NOT NULL`,
                [claimed.subscriptionId, reason]
            )
            if (rowCount) this.log.warn({ subscription: claimed.subscriptionId, reason }, 'webhook subscription disabled automatically')
        }
    }

    /** POST …/test: a signed test_ping sent now, once, outside the queue; recorded in the history, never retried, counters untouched. */
    async sendTest(subscription: Subscription): Promise<TestResult> {
        const eventId = randomUUID()
        const at = new Date()
        const body = testPingBody(eventId, subscription.id, at)
        const delivery = await inTransaction(this.pool, async (client) => {
            await client.query(`INSERT INTO bridge_webhook_event (id, event, body, fanned_out_at, created_at) VALUES ($1, $2, $3, now(), $4)`, [eventId, TEST_PING, body, at])
            const { rows } = await client.query(
                `INSERT INTO bridge_webhook_delivery (event_id, subscription_id, next_attempt_at, lease_token)
                 VALUES ($1, $2, now() + $3 * interval '1 millisecond', gen_random_uuid()) RETURNING id, lease_token`,
                [eventId, subscription.id, LEASE_MS]
            )
            return rows[0] as { id: string; lease_token: string }
        })
        const secrets = (await this.store.signingSecrets([subscription.id])).get(subscription.id) ?? []
        const bytes = Buffer.from(body, 'utf8')
        const outcome = await this.transport.send({ url: subscription.url, method: subscription.method }, bytes, (sentAt) => deliveryHeaders({
            event: TEST_PING, eventId, deliveryId: delivery.id, subscriptionId: subscription.id, body: bytes, secrets, at: sentAt,
        }))
        await this.pool.query(
            `WITH d AS (
                UPDATE bridge_webhook_delivery SET state = $3, attempts = 1, next_attempt_at = NULL, lease_token = NULL, last_status = $4, last_error = $5,
                    last_attempt_at = $6, delivered_at = CASE WHEN $3 = 'delivered' THEN now() END
                WHERE id = $1 AND lease_token = $2 RETURNING id)
             INSERT INTO bridge_webhook_attempt (delivery_id, attempt, started_at, duration_ms, status, error) SELECT id, 1, $6, $7, $4, $5 FROM d`,
            [delivery.id, delivery.lease_token, outcome.ok ? 'delivered' : 'undelivered', outcome.status, outcome.error, outcome.startedAt, outcome.durationMs]
        )
        return { delivered: outcome.ok, status: outcome.status ?? 0, error: outcome.error, event_id: eventId, delivery_id: delivery.id }
    }

    /**
     * POST /retry/:eventId: every delivery of the event that is not delivered and not in flight, to
     * an enabled subscription, becomes due now. One more failure of a delivery that had used all its
     * attempts leaves it undelivered again (a manual retry is one attempt, not a new schedule).
     */
    async retry(eventId: string): Promise<{ redriven: string[]; skipped: { delivery_id: string; subscription_id: string; reason: string }[] } | undefined> {
        const result = await inTransaction(this.pool, async (client) => {
            const event = await client.query(`SELECT id FROM bridge_webhook_event WHERE id = $1`, [eventId])
            if (event.rows.length === 0) return undefined
            const { rows } = await client.query(
                `SELECT d.id, d.subscription_id, d.state, s.active, (d.lease_token IS NOT NULL AND d.next_attempt_at > now()) AS in_flight
                 FROM bridge_webhook_delivery d JOIN bridge_webhook_subscription s ON s.id = d.subscription_id
                 WHERE d.event_id = $1 ORDER BY d.seq FOR UPDATE OF d`,
                [eventId]
            )
            const redriven: string[] = []
            const skipped: { delivery_id: string; subscription_id: string; reason: string }[] = []
            for (const r of rows) {
                const reason = r.state === 'delivered' ? 'already delivered' : !r.active ? 'subscription disabled' : r.in_flight ? 'attempt in flight' : undefined
                if (reason) skipped.push({ delivery_id: r.id, subscription_id: r.subscription_id, reason })
                else redriven.push(r.id)
            }
            if (redriven.length > 0) {
                await client.query(`UPDATE bridge_webhook_delivery SET state = 'pending', next_attempt_at = now(), lease_token = NULL WHERE id = ANY($1)`, [redriven])
            }
            return { redriven, skipped }
        })
        if (result?.redriven.length) await this.notify()
        return result
    }
}
