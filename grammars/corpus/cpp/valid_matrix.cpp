#include <array>
#include <iostream>
#include <stdexcept>

namespace linalg {

template <typename T, std::size_t N>
class Matrix {
public:
    Matrix() : data_{} {}

    T& operator()(std::size_t r, std::size_t c) {
        if (r >= N || c >= N) throw std::out_of_range("index");
        return data_[r * N + c];
    }

    Matrix operator*(const Matrix& other) const {
        Matrix out;
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j)
                for (std::size_t k = 0; k < N; ++k)
                    out.data_[i * N + j] += data_[i * N + k] * other.data_[k * N + j];
        return out;
    }

private:
    std::array<T, N * N> data_;
};

}  // namespace linalg

int main() {
    linalg::Matrix<int, 2> m;
    m(0, 0) = 1;
    std::cout << (m * m)(0, 0) << '\n';
}
