import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, ManyToOne as ManyToOne_, IntColumn as IntColumn_, DateTimeColumn as DateTimeColumn_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"

/**
 * Liquidity removed: the pair's Burn event.
 */
@Index_(["pair", "blockNumber", "logIndex"], {unique: false})
@Index_(["to", "blockNumber"], {unique: false})
@Entity_()
export class Burn {
    constructor(props?: Partial<Burn>) {
        Object.assign(this, props)
    }

    /**
     * the log's id
     */
    @PrimaryColumn_()
    id!: string

    @ManyToOne_(() => Pair, {nullable: true})
    pair!: Pair

    @IntColumn_({nullable: false})
    blockNumber!: number

    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    @IntColumn_({nullable: false})
    logIndex!: number

    @StringColumn_({nullable: false})
    transactionHash!: string

    @StringColumn_({nullable: false})
    sender!: string

    @StringColumn_({nullable: false})
    to!: string

    @BigIntColumn_({nullable: false})
    amount0!: bigint

    @BigIntColumn_({nullable: false})
    amount1!: bigint

    /**
     * LP tokens burned (the pair's Transfer of its own LP tokens to the zero address)
     */
    @BigIntColumn_({nullable: false})
    liquidity!: bigint

    @BigIntColumn_({nullable: false})
    amountQuote!: bigint
}
