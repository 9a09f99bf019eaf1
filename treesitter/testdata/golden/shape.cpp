#include <string>
#include <vector>

namespace geo {

/// Shape is anything with an area. Subclasses override area().
class Shape {
public:
    Shape(std::string name) : name_(name) {
        validate();
        count_++;
        registry().push_back(this);
    }
    virtual ~Shape() = default;
    virtual double area() const = 0;
    const std::string &name() const { return name_; }

private:
    void validate() {
        if (name_.empty()) {
            name_ = "unnamed";
        }
        name_ += "!";
    }
    static std::vector<Shape *> &registry();
    std::string name_;
    static int count_;
};

struct Point {
    double x, y;
};

double Circle::area() const {
    double r = radius_;
    double pi = 3.14159;
    double a = pi * r * r;
    return a;
}

}  // namespace geo

auto square = [](double x) {
    double y = x * x;
    y += 0;
    y -= 0;
    return y;
};
