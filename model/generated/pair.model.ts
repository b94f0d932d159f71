import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_} from "@subsquid/typeorm-store"

@Entity_()
export class Pair {
    constructor(props?: Partial<Pair>) {
        Object.assign(this, props)
    }

    /**
     * pair contract address
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    token0!: string

    @StringColumn_({nullable: false})
    token1!: string

    @BigIntColumn_({nullable: false})
    reserve0!: bigint

    @BigIntColumn_({nullable: false})
    reserve1!: bigint

    @IntColumn_({nullable: false})
    createdBlock!: number

    @StringColumn_({nullable: false})
    createdTransaction!: string

    /**
     * all-time volume in quote-token (STABLE) base units
     */
    @BigIntColumn_({nullable: false})
    volumeTotal!: bigint

    @IntColumn_({nullable: false})
    swapsTotal!: number
}
