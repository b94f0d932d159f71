import { Client } from 'pg'
import { Logger } from '../common/logger'

/** Advisory-lock namespace of the indexer ("INDX"), apart from the bridge's and the platform's. */
const LOCK_INDEXER = 0x494e4458

export interface IndexerLockOptions {
    /** Called once when another indexer holds the lock and this one starts waiting. */
    onStandby(): void
    /** Another indexer took the lock while this one's connection was gone: this one must stop ingesting at once. */
    onLost(): void
    pollMs?: number
}

/**
 * One indexer per database: docs/production.md#what-stays-single. The indexer holds a session
 * advisory lock on a connection of its own for as long as it runs; a second one started on the
 * same database waits as a standby and takes over once the first stops or dies (Postgres frees the
 * lock with its connection). Two writers would undo each other's unfinalized blocks and fail each
 * other's commits.
 *
 * A lost connection (a database restart) loses the lock too: it is taken again as soon as the
 * database answers, and only if a standby got it first is `onLost` called. Ingestion cannot write
 * while the database is down, so the window in which both could write is the one poll after it
 * is back.
 */
export class IndexerLock {
    private client?: Client
    private released = false

    private constructor(private readonly databaseUrl: string, private readonly log: Logger, private readonly options: IndexerLockOptions) {}

    /** Resolves once this process holds the lock, waiting as a standby while another holds it. */
    static async acquire(databaseUrl: string, log: Logger, options: IndexerLockOptions): Promise<IndexerLock> {
        const lock = new IndexerLock(databaseUrl, log, options)
        let announced = false
        while (!(await lock.tryTake())) {
            if (!announced) {
                log.warn('another indexer holds this database: standing by until it stops')
                options.onStandby()
                announced = true
            }
            await sleep(options.pollMs ?? 2000)
        }
        if (announced) log.info('the other indexer stopped: this one takes over')
        return lock
    }

    async release(): Promise<void> {
        this.released = true
        await this.client?.end().catch(() => undefined)
    }

    /** Connects if needed and asks for the lock once; a connection that fails is dropped and rethrown. */
    private async tryTake(): Promise<boolean> {
        if (!this.client) {
            const client = new Client({ connectionString: this.databaseUrl, application_name: 'indexer lock' })
            client.on('error', () => undefined)
            await client.connect().catch((err) => {
                void client.end().catch(() => undefined)
                throw err
            })
            client.on('end', () => this.connectionLost(client))
            this.client = client
        }
        const { rows } = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, 0) AS ok', [LOCK_INDEXER])
        return rows[0].ok
    }

    private connectionLost(client: Client): void {
        if (this.released || this.client !== client) return
        this.client = undefined
        this.log.warn('the connection holding the indexer lock is gone: taking the lock again once the database answers')
        void this.retake()
    }

    private async retake(): Promise<void> {
        for (;;) {
            if (this.released) return
            const taken = await this.tryTake().catch(() => undefined)
            if (taken === true) {
                this.log.info('indexer lock taken again')
                return
            }
            if (taken === false) {
                this.log.fatal('another indexer took this database while the connection was gone')
                this.options.onLost()
                return
            }
            await sleep(250)
        }
    }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
