// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Ends with SELFDESTRUCT, at creation or later. Since Cancun (EIP-6780) SELFDESTRUCT deletes the
/// contract only in the transaction that created it; afterwards it only sends the balance away.
contract SelfDestructing {
    constructor(address payable beneficiary, bool atOnce) payable {
        if (atOnce) selfdestruct(beneficiary);
    }

    function destroy(address payable beneficiary) external {
        selfdestruct(beneficiary);
    }
}
