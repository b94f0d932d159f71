// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AmmLiquidityToken} from "./AmmLiquidityToken.sol";
import {IAmmCallee, IAmmFactory, IERC20Minimal} from "./interfaces.sol";

/// @title A constant-product pool of two tokens
/// @notice Interface- and event-compatible with Uniswap V2 pairs. The swap fee is 0.2%: the
/// invariant is checked on balances with amountIn x 998 / 1000 counted.
contract AmmPair is AmmLiquidityToken {
    uint256 public constant MINIMUM_LIQUIDITY = 1000;

    address public immutable factory;
    address public token0;
    address public token1;

    uint112 private reserve0;
    uint112 private reserve1;
    uint32 private blockTimestampLast;

    uint256 public price0CumulativeLast;
    uint256 public price1CumulativeLast;
    /// @notice reserve0 x reserve1 after the last liquidity event, while the protocol fee is on.
    uint256 public kLast;

    uint256 private unlocked = 1;

    event Mint(address indexed sender, uint256 amount0, uint256 amount1);
    event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to);
    event Swap(
        address indexed sender,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out,
        address indexed to
    );
    event Sync(uint112 reserve0, uint112 reserve1);

    modifier lock() {
        require(unlocked == 1, "AmmPair: LOCKED");
        unlocked = 0;
        _;
        unlocked = 1;
    }

    constructor() {
        factory = msg.sender;
    }

    function initialize(address token0_, address token1_) external {
        require(msg.sender == factory, "AmmPair: FORBIDDEN");
        token0 = token0_;
        token1 = token1_;
    }

    function getReserves() public view returns (uint112, uint112, uint32) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    function _safeTransfer(address token, address to, uint256 value) private {
        (bool success, bytes memory data) = token.call(abi.encodeCall(IERC20Minimal.transfer, (to, value)));
        require(success && (data.length == 0 || abi.decode(data, (bool))), "AmmPair: TRANSFER_FAILED");
    }

    function _update(uint256 balance0, uint256 balance1, uint112 previous0, uint112 previous1) private {
        require(balance0 <= type(uint112).max && balance1 <= type(uint112).max, "AmmPair: OVERFLOW");
        uint32 timestamp = uint32(block.timestamp % 2 ** 32);
        unchecked {
            // Overflow of the time difference and of the accumulators is intended (TWAP oracles
            // work on differences).
            uint32 elapsed = timestamp - blockTimestampLast;
            if (elapsed > 0 && previous0 != 0 && previous1 != 0) {
                price0CumulativeLast += ((uint256(previous1) << 112) / previous0) * elapsed;
                price1CumulativeLast += ((uint256(previous0) << 112) / previous1) * elapsed;
            }
        }
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        blockTimestampLast = timestamp;
        emit Sync(reserve0, reserve1);
    }

    /// @dev With the protocol fee on, mints to feeTo one sixth of the growth of sqrt(k).
    function _mintFee(uint112 previous0, uint112 previous1) private returns (bool feeOn) {
        address feeTo = IAmmFactory(factory).feeTo();
        feeOn = feeTo != address(0);
        uint256 k = kLast;
        if (feeOn) {
            if (k != 0) {
                uint256 rootK = _sqrt(uint256(previous0) * previous1);
                uint256 rootKLast = _sqrt(k);
                if (rootK > rootKLast) {
                    uint256 liquidity = (totalSupply * (rootK - rootKLast)) / (rootK * 5 + rootKLast);
                    if (liquidity > 0) _mint(feeTo, liquidity);
                }
            }
        } else if (k != 0) {
            kLast = 0;
        }
    }

    function mint(address to) external lock returns (uint256 liquidity) {
        (uint112 previous0, uint112 previous1, ) = getReserves();
        uint256 balance0 = IERC20Minimal(token0).balanceOf(address(this));
        uint256 balance1 = IERC20Minimal(token1).balanceOf(address(this));
        uint256 amount0 = balance0 - previous0;
        uint256 amount1 = balance1 - previous1;

        bool feeOn = _mintFee(previous0, previous1);
        uint256 supply = totalSupply;
        if (supply == 0) {
            liquidity = _sqrt(amount0 * amount1) - MINIMUM_LIQUIDITY;
            // Locked forever, so the pool can never be emptied to a zero supply.
            _mint(address(0), MINIMUM_LIQUIDITY);
        } else {
            liquidity = _min((amount0 * supply) / previous0, (amount1 * supply) / previous1);
        }
        require(liquidity > 0, "AmmPair: INSUFFICIENT_LIQUIDITY_MINTED");
        _mint(to, liquidity);

        _update(balance0, balance1, previous0, previous1);
        if (feeOn) kLast = uint256(reserve0) * reserve1;
        emit Mint(msg.sender, amount0, amount1);
    }

    function burn(address to) external lock returns (uint256 amount0, uint256 amount1) {
        (uint112 previous0, uint112 previous1, ) = getReserves();
        address t0 = token0;
        address t1 = token1;
        uint256 balance0 = IERC20Minimal(t0).balanceOf(address(this));
        uint256 balance1 = IERC20Minimal(t1).balanceOf(address(this));
        uint256 liquidity = balanceOf[address(this)];

        bool feeOn = _mintFee(previous0, previous1);
        uint256 supply = totalSupply;
        amount0 = (liquidity * balance0) / supply;
        amount1 = (liquidity * balance1) / supply;
        require(amount0 > 0 && amount1 > 0, "AmmPair: INSUFFICIENT_LIQUIDITY_BURNED");
        _burn(address(this), liquidity);
        _safeTransfer(t0, to, amount0);
        _safeTransfer(t1, to, amount1);
        balance0 = IERC20Minimal(t0).balanceOf(address(this));
        balance1 = IERC20Minimal(t1).balanceOf(address(this));

        _update(balance0, balance1, previous0, previous1);
        if (feeOn) kLast = uint256(reserve0) * reserve1;
        emit Burn(msg.sender, amount0, amount1, to);
    }

    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external lock {
        require(amount0Out > 0 || amount1Out > 0, "AmmPair: INSUFFICIENT_OUTPUT_AMOUNT");
        (uint112 previous0, uint112 previous1, ) = getReserves();
        require(amount0Out < previous0 && amount1Out < previous1, "AmmPair: INSUFFICIENT_LIQUIDITY");

        uint256 balance0;
        uint256 balance1;
        {
            address t0 = token0;
            address t1 = token1;
            require(to != t0 && to != t1, "AmmPair: INVALID_TO");
            // Optimistic transfer: the invariant below decides whether the caller paid enough.
            if (amount0Out > 0) _safeTransfer(t0, to, amount0Out);
            if (amount1Out > 0) _safeTransfer(t1, to, amount1Out);
            if (data.length > 0) IAmmCallee(to).uniswapV2Call(msg.sender, amount0Out, amount1Out, data);
            balance0 = IERC20Minimal(t0).balanceOf(address(this));
            balance1 = IERC20Minimal(t1).balanceOf(address(this));
        }
        uint256 amount0In = balance0 > previous0 - amount0Out ? balance0 - (previous0 - amount0Out) : 0;
        uint256 amount1In = balance1 > previous1 - amount1Out ? balance1 - (previous1 - amount1Out) : 0;
        require(amount0In > 0 || amount1In > 0, "AmmPair: INSUFFICIENT_INPUT_AMOUNT");
        {
            // 0.2% fee: only 998/1000 of what came in counts towards the invariant.
            uint256 adjusted0 = balance0 * 1000 - amount0In * 2;
            uint256 adjusted1 = balance1 * 1000 - amount1In * 2;
            require(adjusted0 * adjusted1 >= uint256(previous0) * previous1 * 1000 ** 2, "AmmPair: K");
        }
        _update(balance0, balance1, previous0, previous1);
        emit Swap(msg.sender, amount0In, amount1In, amount0Out, amount1Out, to);
    }

    /// @notice Sends tokens beyond the reserves to `to`.
    function skim(address to) external lock {
        address t0 = token0;
        address t1 = token1;
        _safeTransfer(t0, to, IERC20Minimal(t0).balanceOf(address(this)) - reserve0);
        _safeTransfer(t1, to, IERC20Minimal(t1).balanceOf(address(this)) - reserve1);
    }

    /// @notice Sets the reserves to the balances.
    function sync() external lock {
        _update(
            IERC20Minimal(token0).balanceOf(address(this)),
            IERC20Minimal(token1).balanceOf(address(this)),
            reserve0,
            reserve1
        );
    }

    function _min(uint256 x, uint256 y) private pure returns (uint256) {
        return x < y ? x : y;
    }

    /// @dev Babylonian square root, rounded down.
    function _sqrt(uint256 y) private pure returns (uint256 z) {
        if (y > 3) {
            z = y;
            uint256 x = y / 2 + 1;
            while (x < z) {
                z = x;
                x = (y / x + x) / 2;
            }
        } else if (y != 0) {
            z = 1;
        }
    }
}
