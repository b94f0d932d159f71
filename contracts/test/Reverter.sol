// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Test contract that fails in each way a revert can carry a reason: Error(string) from a
/// require with a message, Panic(uint256) (division by zero, a failed assert, an index out of
/// bounds), a custom error with arguments, and a bare revert without data.
contract Reverter {
    error Refused(address who, uint256 amount, string why);

    uint256[] private items;
    uint256 public calls;

    function requireMessage(uint256 amount) external {
        calls++;
        require(amount < 10, "Reverter: amount too large");
    }

    function divide(uint256 a, uint256 b) external returns (uint256) {
        calls++;
        return a / b;
    }

    function assertZero(uint256 x) external {
        calls++;
        assert(x == 0);
    }

    function item(uint256 i) external returns (uint256) {
        calls++;
        return items[i];
    }

    function refuse(uint256 amount) external {
        calls++;
        revert Refused(msg.sender, amount, "over the limit");
    }

    function bare() external {
        calls++;
        revert();
    }
}

/// @dev Calls a Reverter it creates itself, so that the Reverter is created by a call frame (the
/// indexer verifies only contracts created by a transaction from our artifacts): one call catches
/// the inner revert and succeeds, the other fails because the inner call did, with its data.
contract RevertCaller {
    Reverter public immutable target;

    event Caught(bytes reason);

    constructor() {
        target = new Reverter();
    }

    function tryRefuse(uint256 amount) external {
        try target.refuse(amount) {} catch (bytes memory reason) {
            emit Caught(reason);
        }
    }

    function bubbleRefuse(uint256 amount) external {
        target.refuse(amount);
    }
}
