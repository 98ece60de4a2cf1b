// Uses librefnic the way an outside program would: installed headers and library only.
#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>
#include <refnic/genl.hpp>
#include <refnic/netlink.hpp>

#include <iostream>

int main() {
    refnic::ethtool::RingSettings settings;
    settings.tcp_data_split = refnic::ethtool::TcpDataSplit::enabled;
    const refnic::nl::MessageBuilder request =
        refnic::ethtool::make_rings_set_request(0x14, "eth0", settings);
    try {
        // A string with a NUL is refused before anything is sent: exercises refnic::Error.
        refnic::nl::MessageBuilder bad(0x14, 0);
        bad.put_string(1, std::string_view("a\0b", 3));
        return 1;
    } catch (const refnic::Error& error) {
        std::cout << "refnic consumer: " << request.bytes().size() << " bytes, "
                  << refnic::ethtool::to_string(*settings.tcp_data_split) << ", " << error.what()
                  << '\n';
    }
    return request.bytes().size() == 44 ? 0 : 1;
}
