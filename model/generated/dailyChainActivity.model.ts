import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, DateTimeColumn as DateTimeColumn_, Index as Index_, IntColumn as IntColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

/**
 * Per UTC day chain activity: the transactions chart and the stats service's lines (docs/stats-api.md).
 */
@Entity_()
export class DailyChainActivity {
    constructor(props?: Partial<DailyChainActivity>) {
        Object.assign(this, props)
    }

    /**
     * YYYY-MM-DD
     */
    @PrimaryColumn_()
    id!: string

    @Index_({unique: true})
    @DateTimeColumn_({nullable: false})
    date!: Date

    @IntColumn_({nullable: false})
    blocks!: number

    @IntColumn_({nullable: false})
    transactions!: number

    @BigIntColumn_({nullable: false})
    gasUsed!: bigint

    @BigIntColumn_({nullable: false})
    fees!: bigint

    /**
     * the blocks' sizes summed, in bytes
     */
    @BigIntColumn_({nullable: false})
    blockSize!: bigint

    /**
     * the transactions' effective gas prices summed, in wei (their average is this over transactions)
     */
    @BigIntColumn_({nullable: false})
    gasPrice!: bigint

    /**
     * distinct senders of the day's transactions
     */
    @IntColumn_({nullable: false})
    activeAccounts!: number

    /**
     * on a Monday's row: distinct senders of the ISO week it starts (0 on other days)
     */
    @IntColumn_({nullable: false})
    activeAccountsWeek!: number

    /**
     * senders whose first transaction is of this day
     */
    @IntColumn_({nullable: false})
    newAccounts!: number

    /**
     * contracts created (by a transaction or a call) that stood
     */
    @IntColumn_({nullable: false})
    newContracts!: number

    /**
     * contracts the indexer verified from our artifacts; the API's verifications are counted in verified_contract_day
     */
    @IntColumn_({nullable: false})
    verifiedContracts!: number

    /**
     * the sum of every address's native balance, as of the last batch committed with blocks of the day; null: not known (carried from the day before)
     */
    @BigIntColumn_({nullable: true})
    coinSupply!: bigint | undefined | null

    /**
     * addresses with a native balance above 0, as of the same batch as coinSupply
     */
    @IntColumn_({nullable: true})
    coinHolders!: number | undefined | null
}
