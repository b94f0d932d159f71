import {BigDecimal} from "@subsquid/big-decimal"
import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, IntColumn as IntColumn_, DateTimeColumn as DateTimeColumn_, StringColumn as StringColumn_, ManyToOne as ManyToOne_, BigIntColumn as BigIntColumn_, BigDecimalColumn as BigDecimalColumn_, OneToMany as OneToMany_} from "@subsquid/typeorm-store"
import {Token} from "./token.model"
import {Swap} from "./swap.model"

/**
 * One trade, one row (Dune's dex.trades): consecutive Swaps of a transaction where each hop's output goes to the next hop's pair.
 */
@Index_(["trader", "blockNumber", "id"], {unique: false})
@Entity_()
export class Trade {
    constructor(props?: Partial<Trade>) {
        Object.assign(this, props)
    }

    /**
     * the first hop's log id
     */
    @PrimaryColumn_()
    id!: string

    @IntColumn_({nullable: false})
    blockNumber!: number

    @Index_()
    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    @StringColumn_({nullable: false})
    transactionHash!: string

    /**
     * the transaction's sender
     */
    @StringColumn_({nullable: false})
    trader!: string

    /**
     * the last hop's to
     */
    @StringColumn_({nullable: false})
    recipient!: string

    @Index_()
    @ManyToOne_(() => Token, {nullable: true})
    tokenIn!: Token

    @Index_()
    @ManyToOne_(() => Token, {nullable: true})
    tokenOut!: Token

    /**
     * base units
     */
    @BigIntColumn_({nullable: false})
    amountIn!: bigint

    @BigIntColumn_({nullable: false})
    amountOut!: bigint

    /**
     * whole tokens
     */
    @BigDecimalColumn_({nullable: false})
    amountInDecimal!: BigDecimal

    @BigDecimalColumn_({nullable: false})
    amountOutDecimal!: BigDecimal

    /**
     * quote-token base units, counted once: the first hop's volume, else (unpriced) the last hop's
     */
    @BigIntColumn_({nullable: false})
    volumeQuote!: bigint

    @IntColumn_({nullable: false})
    hops!: number

    @OneToMany_(() => Swap, e => e.trade)
    swaps!: Swap[]
}
