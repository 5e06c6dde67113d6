func f(_ x: Int) -> Int {
    if x > 1 {
        return x
    
