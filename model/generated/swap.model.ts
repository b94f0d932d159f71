import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, ManyToOne as ManyToOne_, IntColumn as IntColumn_, DateTimeColumn as DateTimeColumn_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"
import {Trade} from "./trade.model"

/**
 * One hop: a pair's Swap event.
 */
@Index_(["pair", "blockNumber", "logIndex"], {unique: false})
@Index_(["trader", "blockNumber", "logIndex"], {unique: false})
@Entity_()
export class Swap {
    constructor(props?: Partial<Swap>) {
        Object.assign(this, props)
    }

    /**
     * the log's id
     */
    @PrimaryColumn_()
    id!: string

    @ManyToOne_(() => Pair, {nullable: true})
    pair!: Pair

    /**
     * the trade (route) this hop belongs to
     */
    @Index_()
    @ManyToOne_(() => Trade, {nullable: true})
    trade!: Trade

    @IntColumn_({nullable: false})
    blockNumber!: number

    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    @IntColumn_({nullable: false})
    logIndex!: number

    @StringColumn_({nullable: false})
    transactionHash!: string

    /**
     * the transaction's sender
     */
    @StringColumn_({nullable: false})
    trader!: string

    /**
     * the caller of the pair (the router for routed trades)
     */
    @StringColumn_({nullable: false})
    sender!: string

    @StringColumn_({nullable: false})
    to!: string

    @BigIntColumn_({nullable: false})
    amount0In!: bigint

    @BigIntColumn_({nullable: false})
    amount1In!: bigint

    @BigIntColumn_({nullable: false})
    amount0Out!: bigint

    @BigIntColumn_({nullable: false})
    amount1Out!: bigint

    /**
     * volume in quote-token base units; 0 when the swap could not be priced
     */
    @BigIntColumn_({nullable: false})
    volume!: bigint
}
