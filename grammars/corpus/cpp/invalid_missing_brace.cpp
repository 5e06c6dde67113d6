#include <vector>

int total(const std::vector<int>& xs) {
    int t = 0;
    for (int x : xs) {
        t += x;
    return t;
