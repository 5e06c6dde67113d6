#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct Plugin {
    virtual ~Plugin() = default;
    virtual std::string name() const = 0;
};

class Registry {
public:
    using Factory = std::function<std::unique_ptr<Plugin>()>;

    void add(const std::string& key, Factory f) { factories_[key] = std::move(f); }

    std::vector<std::unique_ptr<Plugin>> build() const {
        std::vector<std::unique_ptr<Plugin>> out;
        for (const auto& [key, factory] : factories_) {
            if (auto p = factory(); p != nullptr) {
                out.push_back(std::move(p));
            }
        }
        return out;
    }

private:
    std::map<std::string, Factory> factories_;
};

constexpr int square(int x) { return x * x; }
static_assert(square(3) == 9);
