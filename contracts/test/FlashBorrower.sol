// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IFlashPair {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function sync() external;
}

interface ITransfer {
    function transfer(address to, uint256 value) external returns (bool);
}

/// @dev Test flash-swap borrower. Its callback either re-enters the pair, which the pair's lock
/// must refuse, or repays exactly what it borrowed without the 0.2% fee, which the pair's
/// invariant check must refuse.
contract FlashBorrower {
    bool private reenter;

    function borrow(address pair, uint256 amount0Out, uint256 amount1Out, bool reenter_) external {
        reenter = reenter_;
        IFlashPair(pair).swap(amount0Out, amount1Out, address(this), "flash");
    }

    function uniswapV2Call(address, uint256 amount0, uint256 amount1, bytes calldata) external {
        IFlashPair pair = IFlashPair(msg.sender);
        if (reenter) {
            pair.sync();
            return;
        }
        if (amount0 > 0) ITransfer(pair.token0()).transfer(address(pair), amount0);
        if (amount1 > 0) ITransfer(pair.token1()).transfer(address(pair), amount1);
    }
}
