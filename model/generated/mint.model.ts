import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, ManyToOne as ManyToOne_, IntColumn as IntColumn_, DateTimeColumn as DateTimeColumn_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"

/**
 * Liquidity added: the pair's Mint event.
 */
@Index_(["pair", "blockNumber", "logIndex"], {unique: false})
@Index_(["to", "blockNumber"], {unique: false})
@Entity_()
export class Mint {
    constructor(props?: Partial<Mint>) {
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

    /**
     * who received the LP tokens (the pair's Transfer from the zero address before the Mint); null if none
     */
    @StringColumn_({nullable: true})
    to!: string | undefined | null

    @BigIntColumn_({nullable: false})
    amount0!: bigint

    @BigIntColumn_({nullable: false})
    amount1!: bigint

    /**
     * LP tokens minted to `to` (base units)
     */
    @BigIntColumn_({nullable: false})
    liquidity!: bigint

    /**
     * both amounts in quote-token base units (twice the valued side)
     */
    @BigIntColumn_({nullable: false})
    amountQuote!: bigint
}
