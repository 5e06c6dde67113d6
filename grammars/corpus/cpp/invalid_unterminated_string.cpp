#include <iostream>

int main() {
    std::cout << "oops << std::endl;
    return 0;
}
